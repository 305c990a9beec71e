'use strict';
// What a deployable's container gives it in memory, read from the one place each figure lives, so a
// process started on this machine (deploy/local/start-cluster.js, the chaos soak) runs with the heap
// it would have in its container, and the soak judges it against the limit it would have:
// - the memory limit: deploy/k8s/services/<name>/resources.yaml (`limits:` then `memory: <n><unit>`);
// - V8's old-space share of it: the image's NODE_OPTIONS (deploy/docker/Dockerfile,
//   `--max-old-space-size-percentage`, which Node applies to the container's cgroup limit).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const UNIT_KB = { Ki: 1, Mi: 1024, Gi: 1024 * 1024, K: 1000 / 1024, M: 1e6 / 1024, G: 1e9 / 1024 };

/** Each deployable's Kubernetes memory limit in kB: { gateway: 327680, ... }. */
function memoryLimits(root = ROOT) {
  const dir = path.join(root, 'deploy/k8s/services');
  const limits = {};
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name, 'resources.yaml');
    if (!fs.existsSync(file)) continue;
    const m = /limits:\s*\n\s*memory:\s*(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?\b/.exec(
      fs.readFileSync(file, 'utf8'),
    );
    if (m) limits[name] = Number(m[1]) * (m[2] ? UNIT_KB[m[2]] : 1 / 1024);
  }
  return limits;
}

/** The share of the container's memory V8's old space may take, in percent, from the image. */
function heapPercent(root = ROOT) {
  const dockerfile = fs.readFileSync(path.join(root, 'deploy/docker/Dockerfile'), 'utf8');
  const m = /--max-old-space-size-percentage=(\d+(?:\.\d+)?)/.exec(dockerfile);
  if (!m) throw new Error('deploy/docker/Dockerfile: NODE_OPTIONS sets no --max-old-space-size-percentage');
  return Number(m[1]);
}

/**
 * Node's arguments that give a process outside a container the heap its container gives it: the
 * percentage of the deployable's limit, as an absolute size (there is no cgroup limit here to take
 * a percentage of). None for a deployable without a limit.
 */
function heapArgs(deployable, root = ROOT) {
  const kb = memoryLimits(root)[deployable];
  if (kb === undefined) return [];
  return [`--max-old-space-size=${Math.floor(((kb / 1024) * heapPercent(root)) / 100)}`];
}

module.exports = { memoryLimits, heapPercent, heapArgs };
