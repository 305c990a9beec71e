import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { userJourney } from '../client/journey';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { checkAgainstDocument, type Recorded } from './openapi-conformance';

// The client a mobile developer generates: openapi-typescript over the live /openapi.json must give
// exactly the checked-in test/client/lingua-api.d.ts (UPDATE_OPENAPI_CLIENT=1 rewrites it:
// `npm run openapi:client`), the journey written against it compiles under strict tsc with no
// casts, and it runs against the whole stack with every answer valid against the document.
const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const checkedIn = join(root, 'test', 'client', 'lingua-api.d.ts');

type Doc = Parameters<typeof checkAgainstDocument>[0] & { info: { description: string } };
let stack: InProcessStack;
let dir: string;
let doc: Doc;

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv());
  await waitFor(
    async () => {
      doc = (await (await fetch(`${stack.gateway.url}/openapi.json`)).json()) as Doc;
      expect(doc.info.description).not.toContain('Not available right now');
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  dir = mkdtempSync(join(tmpdir(), 'lingua-client-'));
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the generated client', () => {
  it('When openapi-typescript reads /openapi.json, Then it gives the checked-in client types', async () => {
    const file = join(dir, 'openapi.json');
    const out = join(dir, 'lingua-api.d.ts');
    writeFileSync(file, JSON.stringify(doc));
    await run(join(root, 'node_modules', '.bin', 'openapi-typescript'), [file, '-o', out], { cwd: root });
    const generated = readFileSync(out, 'utf8');
    if (process.env.UPDATE_OPENAPI_CLIENT === '1') writeFileSync(checkedIn, generated);
    // out of date: run `npm run openapi:client` and commit test/client/lingua-api.d.ts
    expect(readFileSync(checkedIn, 'utf8')).toBe(generated);
    // no success answer is typed `never` (an operation without a documented body), but a 204's
    expect(generated).not.toMatch(/\n\s+2(?!04)\d\d: \{\s*headers: \{[^}]*\};\s*content\?: never;/);
  }, 60_000);

  it('When the journey is compiled, Then strict tsc accepts it with no casts', async () => {
    // no cast of any kind: `as` (but `as const`), `<T>x`, `x!`, nor a silenced error
    const file = join(root, 'test', 'client', 'journey.ts');
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const casts: string[] = [];
    const visit = (node: ts.Node): void => {
      const asConst = ts.isAsExpression(node) && node.type.getText(source) === 'const';
      if (
        (ts.isAsExpression(node) && !asConst) ||
        ts.isTypeAssertionExpression(node) ||
        ts.isNonNullExpression(node)
      )
        casts.push(node.getText(source));
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect(casts).toEqual([]);
    expect(source.text).not.toMatch(/@ts-(ignore|expect-error|nocheck)|eslint-disable/);
    await run(
      join(root, 'node_modules', '.bin', 'tsc'),
      ['-p', join(root, 'test', 'client', 'tsconfig.json')],
      {
        cwd: root,
      },
    );
  }, 120_000);

  it('When a user goes through a first session with it, Then every step succeeds and every answer matches the document', async () => {
    const recorded: Recorded[] = [];
    // a client address of its own (a loopback one, which the gateway trusts as a proxy hop): the
    // 5-per-minute log-in limit per address is shared with every other suite on this Redis
    const address = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      request.headers.set('x-forwarded-for', address);
      const res = await fetch(request);
      const text = await res.clone().text();
      const path = new URL(request.url).pathname;
      recorded.push({
        method: request.method,
        path,
        status: res.status,
        body: text ? JSON.parse(text) : null,
      });
      return res;
    };
    const tag = Date.now().toString(36);
    const result = await userJourney(
      stack.gateway.url,
      { email: `journey_${tag}@example.com`, username: `j_${tag}` },
      recording,
    );
    expect(result.steps.map((s) => s.operation)).toEqual([
      'auth.v1.register',
      'auth.v1.login',
      'flashcards.create',
      'flashcards.review',
      'flashcards.due',
      'flashcardSets.create',
      'flashcards.create (Group C)',
      'flashcardSets.list',
      'learning.session.start',
      'learning.review',
      'learning.session.end',
      'ai.analyzeSentence',
      'notifications.list',
      'subscriptions.v1.status',
      'flashcards.list',
      'flashcards.update',
      'flashcards.nextReview',
      'learning.due',
      'learning.stats',
      'achievements.list',
      'ai.quota',
      'users.profile',
      'subscriptions.v1.plans',
      'dialogues.v1.usage',
    ]);
    expect(result).toMatchObject({ subscriptionActive: false, sessionXp: 10 });
    expect(result.correctedSentence).toEqual(expect.any(String));

    const { failures, checked, passed } = checkAgainstDocument(doc, recorded);
    expect(failures).toEqual([]);
    // every answer of the journey had a schema to be checked against
    expect(checked).toHaveLength(recorded.length);
    // coverage: which operations of the document have an answer validated by this suite
    const validated = new Set(passed.map((c) => c.split(' ').slice(0, 2).join(' ')));
    const all = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const report = all
      .map((op) => `${validated.has(op) ? 'validated    ' : 'not exercised'} ${op}`)
      .join('\n');
    if (process.env.OPENAPI_COVERAGE_REPORT)
      writeFileSync(process.env.OPENAPI_COVERAGE_REPORT, `${report}\n`);
    // eslint-disable-next-line no-console
    console.log(`journey: ${validated.size} of ${all.length} operations with a validated answer`);
    expect(validated.size).toBeGreaterThanOrEqual(23);
  }, 60_000);
});
