import fs from 'node:fs';
import path from 'node:path';
import { status as grpcStatus } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, ERROR_MEANINGS, type ErrorCode } from '@lingua/errors';
import { signedHeaders, webhookBody } from '../../services/notifications/src/domain/webhook-signature';

// The client developer's guide (docs/api/README.md) stays true to the code: its error catalogue is
// the one in libs/errors (UPDATE_API_DOCS=1, `npm run docs:api`, rewrites it), its webhook
// verification snippet accepts what the notifications service signs, and its links lead somewhere.

const ROOT = path.resolve(__dirname, '../..');
const GUIDE = path.join(ROOT, 'docs/api/README.md');
const START = /<!-- error-catalogue:start[^>]*-->\n/;
const END = '<!-- error-catalogue:end -->';

function catalogueTable(): string {
  const rows = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => {
    const { http, catalogue, grpc } = ERROR_CATALOGUE[code];
    return [
      `\`${code}\``,
      String(http),
      `\`${catalogue}\``,
      `${grpcStatus[grpc]} (${grpc})`,
      ERROR_MEANINGS[code],
    ];
  });
  const header = ['code (Group A `error.code`)', 'HTTP', 'Group C `error.code`', 'gRPC status', 'meaning'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

function catalogueSection(text: string): { before: string; table: string; after: string } {
  const start = START.exec(text);
  const end = text.indexOf(END);
  if (!start || end < 0) throw new Error('docs/api/README.md: the error-catalogue markers are missing');
  const from = start.index + start[0].length;
  return { before: text.slice(0, from), table: text.slice(from, end).trim(), after: text.slice(end) };
}

describe('docs/api/README.md', () => {
  it('When the error catalogue of libs/errors is compared with the guide, Then the table is exactly it', () => {
    let text = fs.readFileSync(GUIDE, 'utf8');
    if (process.env.UPDATE_API_DOCS === '1') {
      const { before, after } = catalogueSection(text);
      text = `${before}\n${catalogueTable()}\n\n${after}`;
      fs.writeFileSync(GUIDE, text);
    }
    expect(catalogueSection(text).table).toBe(catalogueTable());
    // every code once, in the code's order
    const codes = [...catalogueSection(text).table.matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]);
    expect(codes).toEqual(Object.keys(ERROR_CATALOGUE));
  });

  it('When the guide’s webhook snippet checks a delivery the service signed, Then it accepts it and refuses a forgery', () => {
    const text = fs.readFileSync(GUIDE, 'utf8');
    const snippet = /<!-- webhook-verify:start[^>]*-->\s*```js\n([\s\S]*?)```/.exec(text)?.[1];
    expect(snippet).toBeDefined();
    const verify = new Function('require', `${snippet}\nreturn verifyLinguaWebhook;`)(require) as (
      secret: string,
      headers: Record<string, string>,
      rawBody: string,
    ) => { event: string; data: unknown };

    const current = {
      secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
      createdAt: new Date(),
      expiresAt: null,
    };
    const previous = {
      secret: `whsec_${Buffer.alloc(24, 9).toString('base64')}`,
      createdAt: new Date(0),
      expiresAt: new Date(Date.now() + 3_600_000),
    };
    const event = { event: 'user.created', timestamp: new Date().toISOString(), data: { userId: 'u-1' } };
    const body = webhookBody('msg_1', event, current.secret);
    const headers = signedHeaders('msg_1', new Date(), body, [current, previous]);

    expect(verify(current.secret, headers, body)).toMatchObject({
      event: 'user.created',
      data: { userId: 'u-1' },
    });
    // mid-rotation the receiver may still hold the previous secret
    expect(verify(previous.secret, headers, body).event).toBe('user.created');
    expect(() => verify(current.secret, headers, body.replace('u-1', 'u-2'))).toThrow(/no valid signature/);
    expect(() => verify(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, headers, body)).toThrow(
      /no valid signature/,
    );
    const old = signedHeaders('msg_1', new Date(Date.now() - 600_000), body, [current]);
    expect(() => verify(current.secret, old, body)).toThrow(/timestamp/);
  });

  it('When the guide and the root README link to files, Then each exists, and the README points at the guide, not at a spec outside the repository', () => {
    for (const file of [GUIDE, path.join(ROOT, 'README.md')]) {
      const text = fs.readFileSync(file, 'utf8');
      for (const [, target] of text.matchAll(/\]\(((?!https?:|#)[^)#\s]+)(#[^)]*)?\)/g))
        expect([file, target, fs.existsSync(path.resolve(path.dirname(file), target!))]).toEqual([
          file,
          target,
          true,
        ]);
    }
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('](docs/api/README.md)');
    // the interface a client reads is inside the project, not in a document beside it
    expect(readme).not.toMatch(/\.\.\/shared\/(spec|DESIGN)/);
  });
});
