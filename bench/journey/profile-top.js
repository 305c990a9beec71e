#!/usr/bin/env node
// Where each process of a BENCH_CPU_PROF_DIR run spent its CPU: per .cpuprofile (one per process),
// the busy time by module and the functions with the most self time. `--last-s N` keeps the last N
// seconds of each profile only (the measured window, not the start-up).
//   node bench/journey/profile-top.js /tmp/prof [--last-s 40] [--top 12]
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const dir = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? '.';
const lastS = opt('--last-s', Infinity);
const top = opt('--top', 12);

/** The module a call frame belongs to: an npm package, a node: module, or a workspace of this repo. */
function moduleOf({ url, functionName }) {
  if (url.includes('node_modules/')) return url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1');
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url === '') return functionName; // (garbage collector), (program), native code
  return url.replace(/.*\/(services\/[^/]+|gateway|libs\/[^/]+)\/.*/, '$1');
}

for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const from = profile.endTime - lastS * 1e6;
  const selfUs = new Map();
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= from) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const byModule = new Map();
  const byFunction = new Map();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id).callFrame;
    if (frame.functionName === '(idle)') continue;
    busy += us;
    const mod = moduleOf(frame);
    byModule.set(mod, (byModule.get(mod) ?? 0) + us);
    const fn = `${frame.functionName || '(anonymous)'} ${mod}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const main = profile.nodes.find((n) => /(services\/[^/]+|gateway)\/dist\/main\.js/.test(n.callFrame.url));
  const who = main ? main.callFrame.url.replace(/.*\/(services\/[^/]+|gateway)\/dist\/.*/, '$1') : '?';
  const list = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`)
      .join('\n');
  console.log(
    `\n== ${who} (${file}): busy ${(busy / 1e6).toFixed(2)} s\nby module:\n${list(byModule)}\nby function (self):\n${list(byFunction)}`,
  );
}
