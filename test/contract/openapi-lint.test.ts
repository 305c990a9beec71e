import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { accessPolicyFor } from '../../gateway/src/domain/access-policy';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';

// The public document as client developers get it (/openapi.json of the whole stack), linted with
// the tools they use: Redocly CLI and Spectral, with the rulesets at the repository root
// (redocly.yaml, .spectral.yaml), which say why any warning is kept.
const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

let stack: InProcessStack;
let dir: string;
let file: string;

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv());
  // the whole document: a service whose fragment is late (a loaded machine) is asked again
  let doc: { info: { description: string } } | undefined;
  await waitFor(
    async () => {
      doc = await (await fetch(`${stack.gateway.url}/openapi.json`)).json();
      expect(doc!.info.description).not.toContain('Not available right now');
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  dir = mkdtempSync(join(tmpdir(), 'lingua-openapi-'));
  file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  if (process.env.OPENAPI_DUMP) writeFileSync(process.env.OPENAPI_DUMP, JSON.stringify(doc, null, 2));
  // the whole suite's conformance gate counts the operations of this document (test/global-teardown.js)
  if (process.env.OPENAPI_CONFORMANCE) {
    mkdirSync(process.env.OPENAPI_CONFORMANCE, { recursive: true });
    writeFileSync(join(process.env.OPENAPI_CONFORMANCE, 'document.openapi'), JSON.stringify(doc));
  }
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs a linter that exits non-zero on errors; its JSON report is read either way. */
async function report(cmd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(cmd, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const { stdout } = err as { stdout?: string };
    if (!stdout) throw err;
    return stdout;
  }
}

describe('the public OpenAPI document', () => {
  it('When it is built, Then every service is in it and each operation has a unique operationId and a typed success answer', async () => {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      paths: Record<
        string,
        Record<string, { operationId?: string; responses: Record<string, { content?: object }> }>
      >;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
    );
    expect(operations.length).toBeGreaterThan(90);
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    // a generated client types `data` from the 2XX content; none may be left without one (a 204 has none)
    const untyped = operations
      .filter(
        ({ op }) =>
          !Object.entries(op.responses).some(([s, r]) => (s.startsWith('2') && r.content) || s === '204'),
      )
      .map((o) => o.where);
    expect(untyped).toEqual([]);
  });

  it('When Redocly lints it, Then it reports no error', async () => {
    const out = await report(bin('redocly'), [
      'lint',
      file,
      '--format=json',
      '--config',
      join(root, 'redocly.yaml'),
    ]);
    const { problems, totals } = JSON.parse(out) as {
      problems: Array<{ ruleId: string; severity: string; message: string; location: unknown }>;
      totals: { errors: number; warnings: number };
    };
    // eslint-disable-next-line no-console
    console.log(`redocly: ${totals.errors} errors, ${totals.warnings} warnings`);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  }, 120_000);

  it('When Spectral lints it, Then it reports no error', async () => {
    const out = await report(bin('spectral'), [
      'lint',
      file,
      '--format=json',
      '--quiet',
      '--ruleset',
      join(root, '.spectral.yaml'),
    ]);
    const results = JSON.parse(out || '[]') as Array<{
      code: string;
      severity: number;
      message: string;
      path: string[];
    }>;
    // eslint-disable-next-line no-console
    console.log(
      `spectral: ${results.filter((r) => r.severity === 0).length} errors, ${results.filter((r) => r.severity === 1).length} warnings`,
    );
    expect(results.filter((r) => r.severity === 0)).toEqual([]);
  }, 120_000);
});

describe('the edge agrees with the document on who may call', () => {
  it('When an operation is documented as callable without a token, Then the gateway does not ask for one; when it needs one, the gateway does not open it', () => {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>>;
    };
    const disagreements: string[] = [];
    for (const [template, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        // a concrete path of the template, as a caller sends it
        const path = template.replace(/\{[^}]+\}/g, 'x1');
        const { auth } = accessPolicyFor(method.toUpperCase(), path);
        const security = op.security ?? [];
        const tokenOptional = security.length === 0 || security.some((s) => Object.keys(s).length === 0);
        const apiKeyOnly = security.length > 0 && security.every((s) => 'apiKey' in s);
        if (tokenOptional && auth === 'access')
          disagreements.push(
            `${method.toUpperCase()} ${template}: documented without a token, the edge asks for one`,
          );
        if (!tokenOptional && !apiKeyOnly && auth === 'none')
          disagreements.push(
            `${method.toUpperCase()} ${template}: documented with a token, the edge lets anyone through`,
          );
      }
    expect(disagreements).toEqual([]);
  });
});
