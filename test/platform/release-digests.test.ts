import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startRestartableProcess } from '@lingua/testing';
import { ROOT } from './config-variables';

// The release step pins every image by digest (docs/adr/0014-release-pins-image-digests.md):
// deploy/release/pin-digests.sh pushes the local images and writes the production overlay, and the
// deployment contract check in release mode (deploy/contract -release) refuses a render in which a
// Deployment's image is given by tag alone. The first part checks the check on overlays written
// here; the second runs the script against a real registry (Debian's docker-registry, the CNCF
// distribution registry) on a loopback port, with tiny images made by podman (no app image builds:
// those are npm run test:containers).

const run = promisify(execFile);
const BUILD_DEADLINE_MS = 15 * 60_000; // as deployment-contract.test.ts: a first build compiles kustomize
const BASE = path.join(ROOT, 'deploy/k8s');
const SECRET_EXAMPLE = path.join(BASE, 'secret.example.yaml');
const SCRIPT = path.join(ROOT, 'deploy/release/pin-digests.sh');
const CONTAINERS_CONF = path.join(ROOT, 'deploy/containers/containers.conf');
const REGISTRY_BINARY = '/usr/bin/docker-registry';
const DEPLOYABLES = ['identity', 'flashcards', 'subscriptions', 'ai', 'notifications', 'gateway'];
const DIGEST = /^sha256:[0-9a-f]{64}$/;

interface Checked {
  code: number | null;
  images: Record<string, string>;
  problems: string[];
}

let contractBin: string;
let dir: string;

/** The contract check on a kustomization directory: its exit code, each Deployment's image, its problems. */
function check(k8sDir: string, release = true): Checked {
  const args = [...(release ? ['-release'] : []), '-k8s', k8sDir, '-secret-example', SECRET_EXAMPLE];
  const out = spawnSync(contractBin, args, { cwd: ROOT, encoding: 'utf8' });
  if (!out.stdout) throw new Error(`deploy-contract ${args.join(' ')}: no output; stderr:\n${out.stderr}`);
  const doc = JSON.parse(out.stdout) as {
    kubernetes: { deployments: { name: string; image: string }[] };
    problems: string[];
  };
  return {
    code: out.status,
    images: Object.fromEntries(doc.kubernetes.deployments.map((d) => [d.name, d.image])),
    problems: doc.problems,
  };
}

interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

/** An overlay of the base with these `images:` entries, as pin-digests.sh writes one. */
function overlay(name: string, entries: ImageEntry[]): string {
  const at = path.join(dir, name);
  fs.mkdirSync(at, { recursive: true });
  const images = entries.flatMap((e) => [
    `  - name: ${e.name}`,
    ...(['newName', 'newTag', 'digest'] as const).flatMap((k) => (e[k] ? [`    ${k}: ${e[k]}`] : [])),
  ]);
  fs.writeFileSync(
    path.join(at, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      `  - ${path.relative(at, BASE)}`,
      'images:',
      ...images,
      '',
    ].join('\n'),
  );
  return at;
}

const fakeDigest = (svc: string) => `sha256:${createHash('sha256').update(svc).digest('hex')}`;
const pinned = (svc: string): ImageEntry => ({
  name: `lingua/${svc}`,
  newName: `registry.example.com/lingua/${svc}`,
  digest: fakeDigest(svc),
});

beforeAll(() => {
  contractBin = execFileSync('bash', [path.join(ROOT, 'deploy/contract/build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: BUILD_DEADLINE_MS,
  }).trim();
  dir = fs.mkdtempSync(path.join(tmpdir(), 'lingua-release-digests-'));
}, BUILD_DEADLINE_MS);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the deployment contract check in release mode (-release)', () => {
  it('When the base (tags) is checked as a release, Then each of the six Deployments is refused for its tag; as the development render it passes', () => {
    const asRelease = check(BASE);
    expect(asRelease.code).toBe(1);
    expect(Object.keys(asRelease.images).sort()).toEqual([...DEPLOYABLES].sort());
    expect(asRelease.problems).toHaveLength(DEPLOYABLES.length);
    for (const svc of DEPLOYABLES)
      expect(asRelease.problems).toContainEqual(
        expect.stringContaining(`Deployment/${svc} container ${svc}: image "lingua/${svc}:`),
      );
    for (const p of asRelease.problems) expect(p).toMatch(/is not pinned by digest/);

    const asDevelopment = check(BASE, false);
    expect(asDevelopment.problems).toEqual([]);
    expect(asDevelopment.code).toBe(0);
  });

  it('When an overlay pins every image by digest, Then the release render passes and names each image by its digest', () => {
    const result = check(overlay('all-pinned', DEPLOYABLES.map(pinned)));
    expect(result.problems).toEqual([]);
    expect(result.code).toBe(0);
    for (const svc of DEPLOYABLES)
      expect(result.images[svc]).toBe(`registry.example.com/lingua/${svc}@${fakeDigest(svc)}`);
  });

  it('When one digest is removed (a tag instead), Then the release render is refused for that Deployment alone', () => {
    const entries = DEPLOYABLES.map((svc) =>
      svc === 'identity'
        ? { name: 'lingua/identity', newName: 'registry.example.com/lingua/identity', newTag: '0.1.0' }
        : pinned(svc),
    );
    const result = check(overlay('identity-by-tag', entries));
    expect(result.code).toBe(1);
    expect(result.problems).toEqual([
      expect.stringContaining(
        'Deployment/identity container identity: image "registry.example.com/lingua/identity:0.1.0" is not pinned by digest',
      ),
    ]);
  });

  it('When a deployable has no entry at all (say a new one), Then the release render is refused for its base tag', () => {
    const result = check(overlay('gateway-missing', DEPLOYABLES.filter((s) => s !== 'gateway').map(pinned)));
    expect(result.code).toBe(1);
    expect(result.problems).toEqual([
      expect.stringMatching(
        /^Deployment\/gateway container gateway: image "lingua\/gateway:[^"@]+" is not pinned/,
      ),
    ]);
  });
});

// podman as the project runs it (root, runc, deploy/containers/containers.conf); both tools are
// installed by `deploy/local/infra.sh up --test-tools` (npm test's pretest).
const missing = [
  ...(fs.existsSync('/usr/bin/podman') ? [] : ['podman']),
  ...(fs.existsSync(REGISTRY_BINARY) ? [] : ['docker-registry']),
];
const skipReason =
  missing.length > 0
    ? `${missing.join(' and ')} not installed: run \`bash deploy/local/infra.sh up --test-tools\``
    : process.getuid?.() !== 0
      ? 'podman runs as root here (deploy/containers): run the tests as root'
      : undefined;
const describeWithRegistry = skipReason ? describe.skip : describe;

describeWithRegistry(
  `deploy/release/pin-digests.sh against a real registry on loopback${skipReason ? ` (SKIPPED: ${skipReason})` : ''}`,
  () => {
    const podmanEnv = { ...process.env, CONTAINERS_CONF };
    const podman = async (...args: string[]) => (await run('podman', args, { env: podmanEnv })).stdout.trim();
    const sourceTag = `digest-test-${randomBytes(4).toString('hex')}`;
    const releaseTag = '0.1.0-digest-test';
    const made: string[] = [];
    let registry: Awaited<ReturnType<typeof startRestartableProcess>>;
    let host: string;

    beforeAll(async () => {
      registry = await startRestartableProcess(REGISTRY_BINARY, (port, data) => {
        const config = path.join(data, 'config.yml');
        fs.writeFileSync(
          config,
          [
            'version: 0.1',
            'log:',
            '  level: error',
            '  accesslog:',
            '    disabled: true',
            'storage:',
            '  filesystem:',
            `    rootdirectory: ${path.join(data, 'storage')}`,
            'http:',
            `  addr: 127.0.0.1:${port}`,
            `  secret: ${randomBytes(16).toString('hex')}`,
            '',
          ].join('\n'),
        );
        return ['serve', config];
      });
      host = `127.0.0.1:${registry.port}`;
      // one tiny image per deployable, each with its own bytes (a mix-up of two digests would show)
      for (const svc of DEPLOYABLES) {
        const rootfs = path.join(dir, 'rootfs', svc);
        fs.mkdirSync(rootfs, { recursive: true });
        fs.writeFileSync(path.join(rootfs, 'deployable.txt'), `${svc}\n`);
        const tarball = path.join(dir, `${svc}.tar`);
        await run('tar', ['-C', rootfs, '-cf', tarball, '.']);
        const image = `lingua/${svc}:${sourceTag}`;
        await podman('import', '-q', tarball, image);
        made.push(image);
      }
    }, 60_000);

    afterAll(async () => {
      if (made.length > 0) await podman('rmi', '-f', ...made).catch(() => undefined);
      await registry?.dispose();
    });

    /** What the registry stores under a tag: the manifest's digest (Docker-Content-Digest) and bytes. */
    async function manifest(svc: string, reference: string) {
      const res = await fetch(`http://${host}/v2/lingua/${svc}/manifests/${reference}`, {
        headers: {
          accept: [
            'application/vnd.oci.image.manifest.v1+json',
            'application/vnd.docker.distribution.manifest.v2+json',
          ].join(', '),
        },
      });
      expect(res.status).toBe(200);
      return {
        digest: res.headers.get('docker-content-digest') ?? '',
        body: Buffer.from(await res.arrayBuffer()),
      };
    }

    /** The release script against the test registry, writing its overlay to `out`. */
    const pinDigests = (out: string, ...args: string[]) =>
      run('bash', [SCRIPT, '--registry', host, ...args, '--out', out, '--tls-verify=false'], {
        cwd: ROOT,
        env: podmanEnv,
        timeout: 60_000,
      });

    it('When the script pushes the six local images, Then the overlay it writes names each as <registry>/lingua/<svc>@<the digest the registry reports>, and the release check passes', async () => {
      const out = path.join(dir, 'overlays', 'production');
      const script = await pinDigests(out, '--tag', releaseTag, '--source-tag', sourceTag);
      expect(script.stderr).toContain('the contract check accepts the overlay');

      const result = check(out);
      expect(result.problems).toEqual([]);
      expect(result.code).toBe(0);
      const digests = new Set<string>();
      for (const svc of DEPLOYABLES) {
        const stored = await manifest(svc, releaseTag);
        expect(stored.digest).toMatch(DIGEST);
        // the digest is the manifest's own hash, and the registry serves it by digest too
        expect(`sha256:${createHash('sha256').update(stored.body).digest('hex')}`).toBe(stored.digest);
        expect((await manifest(svc, stored.digest)).digest).toBe(stored.digest);
        expect(result.images[svc]).toBe(`${host}/lingua/${svc}@${stored.digest}`);
        digests.add(stored.digest);
      }
      expect(digests.size).toBe(DEPLOYABLES.length);
      const written = fs.readFileSync(path.join(out, 'kustomization.yaml'), 'utf8');
      expect(written).toContain(`  - ${path.relative(out, BASE)}\n`);
    }, 90_000);

    it('When a local image is missing, Then the script fails and writes no overlay', async () => {
      const out = path.join(dir, 'overlays', 'incomplete');
      const failed = await pinDigests(out, '--source-tag', `${sourceTag}-absent`).then(
        () => undefined,
        (err: { code?: number; stderr?: string }) => err,
      );
      expect(failed?.code).toBeGreaterThan(0);
      expect(failed?.stderr).toContain(`lingua/ai:${sourceTag}-absent`);
      expect(fs.existsSync(path.join(out, 'kustomization.yaml'))).toBe(false);
    }, 60_000);
  },
);
