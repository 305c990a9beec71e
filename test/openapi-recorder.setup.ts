import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { checkAgainstDocument, documentedSuccesses, type Recorded } from './e2e/openapi-conformance';

/** Marks an answer recorded for coverage only (no JSON body to check). */
const NO_BODY = Symbol('no JSON body');

// With OPENAPI_CONFORMANCE=<dir>, every JSON answer a test file receives through fetch from one of
// our servers (the gateway or a service) is checked against that server's OpenAPI document, and
// <dir>/<test file>.json says which operations had a validated answer, which answers did not
// match, and which operations got a documented success answer through a gateway (its real caller's
// way in: a service called directly proves nothing about the edge in front of it).
// `node scripts/openapi-conformance-report.js <dir>` adds the files up. Off by default: it
// changes nothing for a normal run. The documents are asked for only after the file's tests (a
// test that counts the requests its server got must not see ours).
const dir = process.env.OPENAPI_CONFORMANCE;
if (dir) {
  type Doc = Parameters<typeof checkAgainstDocument>[0];
  /** A server's document; `gateway` when it is the public one (a service serves its fragment under /internal). */
  type Served = { doc: Doc; gateway: boolean };
  const original = globalThis.fetch;
  const recorded = new Map<string, Recorded[]>();
  const docs = new Map<string, Promise<Served | undefined>>();
  const documentOf = (origin: string) => {
    let doc = docs.get(origin);
    if (!doc) {
      doc = (async () => {
        for (const path of ['/internal/openapi.json', '/openapi.json']) {
          try {
            const res = await original(`${origin}${path}`);
            const doc = res.ok ? ((await res.json()) as Partial<Doc>) : undefined;
            if (doc && typeof doc.paths === 'object' && doc.paths)
              return { doc: doc as Doc, gateway: path === '/openapi.json' };
          } catch {
            /* not one of ours */
          }
        }
        return undefined;
      })();
      docs.set(origin, doc);
    }
    return doc;
  };

  globalThis.fetch = async (input, init) => {
    // read before the call: a Request whose body the call consumed cannot be read again (a client
    // such as openapi-fetch passes one, and every POST of it went unrecorded)
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const target = input instanceof Request ? input.url : String(input);
    const res = await original(input, init);
    try {
      const url = new URL(target);
      const local = url.hostname === '127.0.0.1' || url.hostname === 'localhost';
      if (local && !url.pathname.includes('openapi.json')) {
        // every answer counts for coverage; only a JSON one has a body to check
        const json = res.headers.get('content-type')?.includes('json') && res.status !== 304;
        const body: unknown = json ? await res.clone().json() : NO_BODY;
        const list = recorded.get(url.origin) ?? [];
        list.push({ method, path: url.pathname, status: res.status, body });
        recorded.set(url.origin, list);
      }
    } catch {
      /* recording never changes what the test sees */
    }
    return res;
  };

  afterAll(async () => {
    const validated = new Set<string>();
    const throughGateway = new Set<string>();
    const failures: unknown[] = [];
    let unchecked = 0;
    for (const [origin, all] of recorded) {
      const served = await documentOf(origin);
      if (!served) continue;
      const { doc } = served;
      if (served.gateway) for (const op of documentedSuccesses(doc, all)) throughGateway.add(op);
      const list = all.filter((r) => r.body !== NO_BODY);
      const result = checkAgainstDocument(doc, list);
      // an operation counts once one of its answers matched its document
      for (const c of result.passed) validated.add(c.split(' ').slice(0, 2).join(' '));
      unchecked += list.length - result.checked.length;
      for (const f of result.failures)
        failures.push({ method: f.method, path: f.path, status: f.status, errors: f.errors });
    }
    mkdirSync(dir, { recursive: true });
    const name = basename(expect.getState().testPath ?? 'unknown');
    writeFileSync(
      join(dir, `${name}.json`),
      JSON.stringify(
        { validated: [...validated], throughGateway: [...throughGateway], unchecked, failures },
        null,
        1,
      ),
    );
  });
}
