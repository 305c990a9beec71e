import { execFileSync } from 'node:child_process';
import { isolatedServiceEnv } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// The CSV export read by a reader we did not write: Python's csv module, as a data scientist or a
// spreadsheet import script would read it. RFC 4180: fields with a comma, a quote or a line break
// are quoted and quotes doubled, so every card is one record with its fields intact.
jest.setTimeout(120_000);

let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4' }));
});
afterAll(() => stopAndDrop(stack));

/** The records Python's csv module reads from `text`, as JSON. */
const readWithPython = (text: string): string[][] =>
  JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        'import csv, io, json, sys; print(json.dumps(list(csv.reader(io.StringIO(sys.stdin.read(), newline="")))))',
      ],
      { input: text.replace(/^\uFEFF/, ''), encoding: 'utf8' },
    ),
  );

describe('CSV export through the gateway', () => {
  it('When cards hold line breaks, commas and quotes, Then an independent CSV reader gets one record per card with every field as written', async () => {
    const reg = await call('POST', '/api/v1/auth/register', { body: newCredentials('csv') });
    expect(reg.status).toBe(201);
    const token = reg.body.data.accessToken as string;
    const cards = [
      { word: 'line', translation: 'Zeile', definition: 'first line\nsecond line' },
      { word: 'return', translation: 'Rücklauf', definition: 'old\r\nMac and Windows\rbreaks' },
      { word: 'comma, quote', translation: 'Komma', definition: 'say "hello", then go' },
    ];
    for (const c of cards) {
      const created = await call('POST', '/api/flashcards', { token, body: c });
      expect(created.status).toBe(200);
    }

    const exported = await call('GET', '/api/export/cards?format=csv', { token });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^text\/csv/);

    const [header, ...records] = readWithPython(exported.body as string);
    expect(records).toHaveLength(cards.length);
    const column = (name: string) => header!.indexOf(name);
    for (const c of cards) {
      const record = records.find((r) => r[column('word')] === c.word);
      expect(record).toBeDefined();
      expect(record![column('translation')]).toBe(c.translation);
      expect(record![column('definition')]).toBe(c.definition);
      expect(record).toHaveLength(header!.length);
    }
  });
});
