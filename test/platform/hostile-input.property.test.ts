import { envelopeStyleFor } from '@lingua/http';
import { isolatedServiceEnv, signTestToken, uniqueName } from '@lingua/testing';
import fc from 'fast-check';
import { DEV_JWT_SECRET } from '../../gateway/src/config';
import type { RunningGateway } from '../../gateway/src/server';
import { type InProcessStack, startInProcessStack } from './in-process-stack';

/*
 * Property: whatever a client sends to any operation of /openapi.json (valid-shaped or hostile
 * bodies, parameters and content types), the stack never answers 5xx, every error is in its path's
 * envelope, and no body carries a stack trace. Replay a failure with FUZZ_SEED=<seed> (and FUZZ_RUNS);
 * FUZZ_DEBUG=1 prints every answer. Sequential on purpose: a burst would be shed (503), not handled.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 45_000);

/** Operations not sent, each with why. */
const SKIPPED: Record<string, string> = {
  'DELETE /api/users/account': 'deletes the signed-in account the rest of the run uses',
};

let stack: InProcessStack;
let gateway: RunningGateway;
let userSub: string;

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv(), {
    // the property is about input handling, not budgets: limits high enough not to hide routes
    RATE_LIMIT_FREE_PER_HOUR: '1000000',
    RATE_LIMIT_SUBSCRIBER_PER_HOUR: '1000000',
    RATE_LIMIT_CATALOGUE_FREE_PER_HOUR: '1000000',
    RATE_LIMIT_CATALOGUE_PREMIUM_PER_HOUR: '1000000',
    RATE_LIMIT_LOGIN_PER_MINUTE: '1000000',
    RATE_LIMIT_PREFIX: uniqueName('fuzz:rl'),
  });
  gateway = stack.gateway;
  // a real account, so routes that read the user's own records find them
  const username = `fz_${Date.now().toString(36)}`;
  const res = await fetch(`${gateway.url}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${username}@example.com`, password: 'Secret123', username }),
  });
  const body = (await res.json()) as { data?: { accessToken?: string; tokens?: { accessToken?: string } } };
  const token = body.data?.accessToken ?? body.data?.tokens?.accessToken;
  userSub = token
    ? (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub
    : signTestToken(DEV_JWT_SECRET).sub;
  // cards whose words take the less travelled paths (punctuation in regexes, non-ASCII), so the
  // generated requests that name an existing id reach the code behind the lookup
  for (const [w, example] of [
    ['well-known', 'A well-known fact.'],
    ['and/or', 'Tea and/or coffee.'],
    ['C++ (lang)', 'I write C++ (lang) daily.'],
    ['Straße', 'Die Straße ist lang.'],
  ]) {
    const card = await fetch(`${gateway.url}/api/flashcards`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signTestToken(DEV_JWT_SECRET, { sub: userSub }).headers,
      },
      body: JSON.stringify({ word: w, translation: 't', definition: 'd', example }),
    });
    const made = ((await card.json()) as { data?: { id?: string } }).data?.id;
    if (made) seededIds.push(made);
  }
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

// ---------------------------------------------------------------------------------------------
// The operations, from the gateway's OpenAPI document

type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; schema: Schema; required: boolean }[];
  body?: { contentType: string; schema: Schema };
}

function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {}))
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method] as Schema | undefined;
      if (!op) continue;
      const key = `${method.toUpperCase()} ${path}`;
      if (SKIPPED[key]) continue;
      const content = (op.requestBody?.content ?? {}) as Record<string, Schema>;
      const contentType = Object.keys(content)[0];
      ops.push({
        method: method.toUpperCase(),
        path,
        params: [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => ({
          name: p.name,
          in: p.in,
          schema: p.schema ?? {},
          required: !!p.required,
        })),
        ...(contentType && { body: { contentType, schema: content[contentType]!.schema ?? {} } }),
      });
    }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Values: valid-shaped from a JSON schema, and hostile

const deep = (n: number): unknown => (n === 0 ? 'x' : { a: deep(n - 1) });
const protoKey = () =>
  JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}');
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    0,
    -1,
    1e308,
    -0.5,
    '',
    ' ',
    'word',
    'https://example.com/a?b=c',
    '\u0000',
    'a\u0000b',
    '\uD800',
    'x\uDC00y',
    '💥'.repeat(50),
    '../../etc/passwd',
    '%E0%A4%A',
    '(a+)+$',
    '[',
    '9999-99-99',
    '-271821-04-20T00:00:00Z',
    '1e9999',
    'NaN',
    '<script>alert(1)</script>',
    { $gt: '' },
    { $ne: null },
    { $where: 'sleep(1000)' },
    [],
    [{ $gt: '' }],
    {},
  ),
  fc.constant(null).map(() => protoKey()),
  fc.constant(null).map(() => deep(60)),
  fc.constantFrom(1_000, 70_000, 300_000).map((n) => 'a'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

function valid(schema: Schema, doc: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if (schema.$ref) {
    const name = String(schema.$ref).split('/').pop()!;
    return valid(doc.components?.schemas?.[name] ?? {}, doc, depth + 1);
  }
  const alts = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alts?.length) return fc.oneof(...alts.map((s) => valid(s, doc, depth + 1)));
  if (schema.allOf?.length) return valid(schema.allOf[0], doc, depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return validString(schema);
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1e6, -1e9),
        max: Math.min(schema.maximum ?? 1e6, 1e9),
      });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valid(schema.items ?? {}, doc, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object':
    default: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      if (!Object.keys(props).length)
        return type === 'object' ? fc.constant({}) : fc.jsonValue({ maxDepth: 2 });
      const required = (schema.required ?? []) as string[];
      return fc.record(
        Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valid(s, doc, depth + 1)])),
        { requiredKeys: Object.keys(props).filter((k) => required.includes(k)) },
      );
    }
  }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return fc
        .date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'uri':
      return fc.webUrl();
  }
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? 30, 30));
  if (schema.pattern === '^[a-z]{2}$') return fc.constantFrom('en', 'de', 'fr', 'zz');
  return fc.string({ minLength: min, maxLength: max });
}

/** A valid-shaped value, or sometimes a hostile one (per field, so one bad field among good ones). */
const maybeHostile = (a: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 3, arbitrary: a }, { weight: 1, arbitrary: hostile });

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Ids seen in successful answers (and the cards made at the start): path parameters reuse them. */
const seenIds: string[] = [];
/** The cards made at the start, picked more often than the rest of the pool. */
const seededIds: string[] = [];
function collectIds(value: unknown, key = ''): void {
  if (seenIds.length >= 200) return;
  if (typeof value === 'string') {
    if (
      (key === 'id' || key.endsWith('Id') || key.endsWith('_id')) &&
      !/^request_?id$/i.test(key) &&
      /^[A-Za-z0-9_-]{8,64}$/.test(value)
    )
      if (!seenIds.includes(value)) seenIds.push(value);
  } else if (Array.isArray(value)) value.slice(0, 20).forEach((v) => collectIds(v, key));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value).slice(0, 50)) collectIds(v, k);
}

// A replay picks the same pool index, though the ids the services mint differ from run to run.
const pick = (pool: string[]) => (i: number) =>
  pool[i % Math.max(1, pool.length)] ?? '00000000-0000-4000-8000-000000000000';
const knownId = fc.oneof(fc.nat().map(pick(seededIds)), fc.nat().map(pick(seenIds)));

const pathParam = fc.oneof(
  { weight: 3, arbitrary: knownId },
  { weight: 1, arbitrary: fc.uuid() },
  fc.constantFrom(
    'x',
    '%00',
    '%',
    '%E0%A4%A',
    '..%2F..%2Fetc',
    'a'.repeat(5_000),
    '%7B%22%24gt%22%3A%22%22%7D',
    '__proto__',
    'constructor',
  ),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);

/** Percent-encoded; a lone surrogate cannot be, so it goes as the bytes a careless client would send. */
function queryString(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text
    .split(/([\uD800-\uDFFF])/)
    .map((part) => (/^[\uD800-\uDFFF]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

/** Convention and auth headers, sometimes hostile (header values must be Latin-1 without CR/LF). */
const headerValue = fc.constantFrom(
  '',
  'x',
  'Europe/Berlin',
  'Not/AZone',
  '../../etc/passwd',
  'a'.repeat(4_000),
  'en-US,en;q=0.9',
  'q=2;;,,',
  '-1',
  '99999999999999999999',
  'NaN',
  'Bearer ',
  'Bearer a.b.c',
  'Basic Og==',
  '{"$gt":""}',
  '\u00ff\u00fe',
);
const hostileHeaders = fc.dictionary(
  fc.constantFrom(
    'x-timezone',
    'accept-language',
    'api-version',
    'x-request-id',
    'x-correlation-id',
    'x-request-timeout-ms',
    'x-api-key',
    'x-client-id',
    'authorization',
    'accept',
    'if-none-match',
    'accept-encoding',
  ),
  headerValue,
  { maxKeys: 2 },
);

const extraHeaders = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Record<string, string>>({}) },
  { weight: 1, arbitrary: hostileHeaders },
);

function requestFor(op: Operation, doc: Schema): fc.Arbitrary<Sent> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const path = fc.tuple(...pathParams.map(() => pathParam)).map((values) => {
    let p = op.path;
    pathParams.forEach((param, i) => (p = p.replace(`{${param.name}}`, values[i]!)));
    return p;
  });
  const query = fc
    .tuple(
      ...queryParams.map((q) =>
        fc.option(maybeHostile(valid(q.schema, doc)), { nil: undefined, freq: q.required ? 10 : 2 }),
      ),
      fc.constantFrom('', '&x[$gt]=', '&__proto__[a]=1', '&page=1&page=2', '&%=%', '&q=%ED%A0%80%FF'),
    )
    .map((values) => {
      const extra = values.pop() as string;
      const pairs = queryParams
        .map((q, i) => (values[i] === undefined ? undefined : `${q.name}=${queryString(values[i])}`))
        .filter(Boolean);
      const qs = pairs.join('&') + extra;
      return qs ? `?${qs.replace(/^&/, '')}` : '';
    });
  const validBody = op.body ? valid(op.body.schema, doc) : fc.constant(undefined);
  const body = fc.oneof(
    {
      weight: 4,
      arbitrary: validBody.map((b) => ({
        type: 'application/json',
        text: JSON.stringify(b ?? {}) as string | Buffer,
      })),
    },
    // one field replaced by a hostile value
    {
      weight: 4,
      arbitrary: fc.tuple(validBody, hostile, fc.nat()).map(([b, bad, i]) => {
        const obj = b && typeof b === 'object' && !Array.isArray(b) ? { ...(b as object) } : {};
        const keys = Object.keys(obj);
        const key = keys.length ? keys[i % keys.length]! : 'x';
        return { type: 'application/json', text: JSON.stringify({ ...obj, [key]: bad }) as string | Buffer };
      }),
    },
    // the whole body hostile
    {
      weight: 2,
      arbitrary: hostile.map((h) => ({
        type: 'application/json',
        text: (JSON.stringify(h) ?? 'null') as string | Buffer,
      })),
    },
    // malformed JSON, wrong or missing content types, bytes that are not UTF-8, a body over the limit
    {
      weight: 2,
      arbitrary: fc.constantFrom<{ type: string; text: string | Buffer }>(
        { type: 'application/json', text: '{"a":' },
        { type: 'application/json', text: '{"__proto__":{"polluted":true}}' },
        { type: 'application/json', text: '['.repeat(5_000) },
        {
          type: 'application/json',
          text: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        },
        { type: 'application/json; charset=utf-16', text: '{}' },
        { type: 'text/plain', text: 'hello' },
        { type: 'application/xml', text: '<a/>' },
        { type: 'application/x-www-form-urlencoded', text: 'a[$gt]=&__proto__[x]=1' },
        { type: 'multipart/form-data', text: 'no boundary' },
        {
          type: 'multipart/form-data; boundary=zz',
          text: '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nword,translation\r\na,b\r\n--zz--\r\n',
        },
        { type: '', text: '{}' },
        { type: 'application/json', text: JSON.stringify({ a: 'x'.repeat(1_100_000) }) },
      ),
    },
    // an upload whose file is hostile: wrong bytes for its name, an archive that is not one, deep JSON
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('a.csv', 'a.json', 'a.apkg', 'a.png', 'a', '../../x.csv'),
          fc.constantFrom<string | Buffer>(
            Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff, 0xff, 0, 0, 1, 2, 3]),
            Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0]),
            '{"cards":[{"word":{"$gt":""},"translation":"\\ud800","__proto__":{"x":1}}]}',
            '['.repeat(10_000),
            '"word","translation"\n"unterminated,x\n' + 'a,b\n'.repeat(2_000),
            '\u0000\u0000',
          ),
          fc.constantFrom('', 'json', 'csv', 'apkg', 'xml'),
        )
        .map(([name, content, format]) => ({
          type: 'multipart/form-data; boundary=zz',
          text: Buffer.concat([
            Buffer.from(
              (format ? `--zz\r\nContent-Disposition: form-data; name="format"\r\n\r\n${format}\r\n` : '') +
                `--zz\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
                'Content-Type: application/octet-stream\r\n\r\n',
            ),
            Buffer.isBuffer(content) ? content : Buffer.from(content),
            Buffer.from('\r\n--zz--\r\n'),
          ]) as string | Buffer,
        })),
    },
  );
  return fc
    .record({ path, query, body, admin: fc.boolean(), extra: extraHeaders })
    .map(({ path: p, query: q, body: b, admin, extra }) => {
      const token = signTestToken(DEV_JWT_SECRET, { sub: userSub, ...(admin && { role: 'admin' }) });
      const headers: Record<string, string> = { ...token.headers, ...extra };
      const sendsBody = op.method !== 'GET' && op.method !== 'DELETE';
      if (sendsBody && b.type) headers['content-type'] = b.type;
      return { method: op.method, path: `${p}${q}`, headers, ...(sendsBody && { body: b.text }) };
    });
}

// ---------------------------------------------------------------------------------------------
// The property

/** A V8 stack frame (raw or JSON-escaped), a `stack` property, or a source path. */
const STACK =
  /(\n|\\n)\s*at \S|\bat (async )?[\w.<>$]+ \((node:|file:|\/)[^)]*:\d+:\d+\)|"stack"\s*:|node_modules\/|\/src\/[\w/.-]+\.[jt]s\b/;

function checkAnswer(sent: Sent, status: number, type: string, text: string) {
  const where = `${sent.method} ${sent.path.slice(0, 200)} → ${status} ${text.slice(0, 300)}`;
  if (STACK.test(text)) throw new Error(`a stack trace or source path in the body: ${where}`);
  let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (type.includes('json')) body = JSON.parse(text);
  const shed = status === 503 && body?.error?.message === 'The server is busy; try again shortly';
  // the offline provider answers a language it does not offer with 400 (services/ai/README.md), so
  // no 5xx is expected from it any more
  if (status >= 500 && !shed) throw new Error(`a 5xx: ${where}`);
  if (status < 400) return;
  if (!body) throw new Error(`an error without a JSON body: ${where}`);
  const style = envelopeStyleFor(sent.path.split('?')[0]!);
  const ok = (() => {
    if (body.success !== false) return false;
    switch (style) {
      case 'flashcards':
        // the same paths answer Group C requests (catalogue-only parameters) in the catalogue envelope
        return (
          (typeof body.error === 'string' && body.error.length > 0) ||
          (/^[A-Z]{3,4}\d{3}$/.test(body.error?.code ?? '') && typeof body.meta?.requestId === 'string')
        );
      case 'auth':
        return typeof body.error?.code === 'string' && typeof body.meta?.requestId === 'string';
      case 'shared':
        return (
          body.data === null && typeof body.message === 'string' && typeof body.meta?.request_id === 'string'
        );
      case 'catalogue':
      case 'plain':
        return /^[A-Z]{3,4}\d{3}$/.test(body.error?.code ?? '') && typeof body.meta?.requestId === 'string';
    }
  })();
  if (!ok) throw new Error(`not the ${style} error envelope: ${where}`);
}

describe('hostile input, property-based', () => {
  it('When any operation gets valid-shaped or hostile input, Then it never answers 5xx, errors are in the envelope and no stack leaks', async () => {
    const started = Date.now();
    const doc = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as Schema;
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(20);
    let sent = 0;
    const statuses: Record<string, number> = {};
    const request = fc.constantFrom(...ops).chain((op) => requestFor(op, doc));
    // eslint-disable-next-line no-console
    console.log(
      `hostile-input: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${ops.length} operations, skipped: ${JSON.stringify(SKIPPED)}`,
    );
    try {
      const result = await fc.check(
        fc.asyncProperty(request, async (req) => {
          const res = await fetch(`${gateway.url}${req.path}`, {
            method: req.method,
            headers: req.headers,
            ...(req.body !== undefined && { body: req.body }),
          });
          const text = await res.text();
          sent += 1;
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (process.env.FUZZ_DEBUG)
            console.log(res.status, req.method, req.path.slice(0, 100), text.slice(0, 160)); // eslint-disable-line no-console
          checkAnswer(req, res.status, res.headers.get('content-type') ?? '', text);
          if (res.ok && (res.headers.get('content-type') ?? '').includes('json'))
            collectIds(JSON.parse(text));
        }),
        // no shrinking: each step is a real request, and the failing one is printed as it was
        {
          seed: SEED,
          numRuns: RUNS,
          interruptAfterTimeLimit: TIME_LIMIT_MS,
          markInterruptAsFailure: false,
          endOnFailure: true,
        },
      );
      if (result.failed) {
        const [req] = result.counterexample ?? [];
        const shown = JSON.stringify({ ...req, body: String(req?.body ?? '').slice(0, 500) }).slice(0, 1500);
        throw new Error(
          `FUZZ_SEED=${SEED} failed after ${result.numRuns} runs (path ${result.counterexamplePath}): ` +
            `${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}\nrequest: ${shown}`,
        );
      }
    } finally {
      // eslint-disable-next-line no-console
      console.log(
        `hostile-input: ${sent} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, ${seededIds.length}+${seenIds.length} ids reused, statuses ${JSON.stringify(statuses)}`,
      );
    }
  }, 110_000);
});
