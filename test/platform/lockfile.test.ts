import fs from 'node:fs';
import path from 'node:path';

// package-lock.json must be what `npm install` on a fresh clone would write, or every contributor's
// install rewrites it and CI's `npm ci` installs a tree nobody reviewed: it must record each
// workspace's package.json as it is, and lock every dependency, including the optional
// per-platform binaries (@swc/core's for macOS, Windows, arm64...) that this machine never installs.
// .ci/run also asks npm itself (`npm install --package-lock-only`, then `git diff --exit-code`).

const ROOT = path.resolve(__dirname, '../..');

type Deps = Record<string, string>;
interface Manifest {
  name?: string;
  version?: string;
  workspaces?: string[];
  dependencies?: Deps;
  devDependencies?: Deps;
  optionalDependencies?: Deps;
  peerDependencies?: Deps;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  engines?: Record<string, string>;
}
interface Locked extends Manifest {
  link?: boolean;
  dev?: boolean;
}

const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, Locked>;
};
const manifest = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;

/** The workspace folders, as npm expands the root's globs. */
function workspaces(): string[] {
  return (manifest('.').workspaces ?? []).flatMap((glob) => {
    if (!glob.endsWith('/*')) return [glob];
    const parent = glob.slice(0, -2);
    return fs
      .readdirSync(path.join(ROOT, parent))
      .map((d) => `${parent}/${d}`)
      .filter((d) => fs.existsSync(path.join(ROOT, d, 'package.json')));
  });
}

/** JSON with every object's keys sorted (npm sorts dependency names; a package.json need not). */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

/** What npm copies from a package.json into its lockfile entry, empty fields left out. */
function recorded(m: Manifest, root: boolean) {
  const fields = [
    'name',
    'version',
    'dependencies',
    'devDependencies',
    'optionalDependencies',
    'peerDependencies',
  ];
  if (root) fields.push('workspaces', 'engines');
  const entries = fields.flatMap((f) => {
    const value = m[f as keyof Manifest];
    const empty = value === undefined || (typeof value === 'object' && Object.keys(value).length === 0);
    return empty ? [] : [[f, value] as const];
  });
  return Object.fromEntries(entries);
}

/** Where node would find `dep` from the package at `location`: its own node_modules, then upwards. */
function resolve(location: string, dep: string): string | undefined {
  let at: string | undefined = location;
  while (at !== undefined) {
    const candidate = `${at ? `${at}/` : ''}node_modules/${dep}`;
    if (lock.packages[candidate]) return candidate;
    if (at === '') return undefined;
    const parent = /^(?:(.*)\/)?node_modules\/(?:@[^/]+\/)?[^/]+$/.exec(at);
    at = parent?.[1] ?? '';
  }
  return undefined;
}

describe('package-lock.json', () => {
  it('When each workspace is compared with its lockfile entry, Then the lockfile records its package.json as it is', () => {
    expect(lock.lockfileVersion).toBe(3);
    const differing = ['', ...workspaces()].filter((ws) => {
      const { link: _link, ...entry } = lock.packages[ws] ?? {};
      return canonical(recorded(entry, ws === '')) !== canonical(recorded(manifest(ws || '.'), ws === ''));
    });
    expect(differing).toEqual([]);
    for (const ws of workspaces()) {
      const name = manifest(ws).name!;
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({ resolved: ws, link: true });
    }
  });

  it('When every dependency is looked up, Then each is locked, for every platform', () => {
    const unlocked: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      if (entry.link) continue;
      const own = location === '' || !location.includes('node_modules/'); // the root or a workspace
      const optionalPeers = new Set(
        Object.entries(entry.peerDependenciesMeta ?? {})
          .filter(([, meta]) => meta.optional)
          .map(([name]) => name),
      );
      const deps = [
        ...Object.keys(entry.dependencies ?? {}),
        ...Object.keys(entry.optionalDependencies ?? {}),
        ...Object.keys(entry.peerDependencies ?? {}).filter((d) => !optionalPeers.has(d)),
        ...(own ? Object.keys(entry.devDependencies ?? {}) : []),
      ];
      for (const dep of deps) if (!resolve(location, dep)) unlocked.push(`${location || '(root)'} -> ${dep}`);
    }
    expect(unlocked).toEqual([]);
    // the platforms @swc/core (jest's compiler) ships binaries for: a lockfile written on one
    // platform by an older npm held only that one, and every other machine rewrote it
    const swc = Object.keys(lock.packages['node_modules/@swc/core']?.optionalDependencies ?? {});
    expect(swc.length).toBeGreaterThan(5);
  });
});
