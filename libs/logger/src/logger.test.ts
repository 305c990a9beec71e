import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { runWithRequestContext } from './request-context';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)));
      cb();
    },
  });
  return { lines, logger: createLogger('test-svc', { level: 'info', destination }) };
}

describe('createLogger', () => {
  it('When logging inside a request context, Then each line is JSON with service, request and correlation ids', () => {
    const { lines, logger } = capture();
    runWithRequestContext({ requestId: 'req-1', correlationId: 'corr-1' }, () => logger.info('hello'));
    expect(lines[0]).toMatchObject({
      service: 'test-svc',
      level: 'info',
      msg: 'hello',
      request_id: 'req-1',
      correlation_id: 'corr-1',
    });
    expect(typeof lines[0]!.time).toBe('string');
  });

  it('When an object holds passwords, tokens, receipts or an authorization header, Then they are redacted', () => {
    const { lines, logger } = capture();
    logger.info({
      password: 'Secret123',
      body: { refreshToken: 'r.t.x', receipt_data: 'BASE64' },
      req: { headers: { authorization: 'Bearer abc', accept: 'json' } },
    });
    const line = JSON.stringify(lines[0]);
    expect(line).not.toMatch(/Secret123|r\.t\.x|BASE64|Bearer abc/);
    expect(lines[0]).toMatchObject({ password: '[REDACTED]', req: { headers: { accept: 'json' } } });
  });

  it('When a nested object, a child logger or an error carries a secret, Then it is redacted one level down', () => {
    const { lines, logger } = capture();
    const failure = Object.assign(new Error('store refused'), { token: 'tok-in-error' });
    logger.info({ user: { email: 'a@example.com', apiKey: 'key-123' }, note: 'n' }, 'nested');
    logger.child({ partner: { secret: 'shh-456', name: 'acme' } }).info('from child');
    logger.error({ err: failure }, 'failed');
    logger.info({ frozen: Object.freeze({ password: 'frozen-pw', id: 7 }) }, 'frozen');
    const text = lines.map((l) => JSON.stringify(l)).join('\n');
    expect(text).not.toMatch(/key-123|shh-456|tok-in-error|frozen-pw/);
    expect(lines[3]).toMatchObject({ frozen: { password: '[REDACTED]', id: 7 } });
    expect(lines[0]).toMatchObject({ user: { email: 'a@example.com', apiKey: '[REDACTED]' }, note: 'n' });
    expect(lines[1]).toMatchObject({ partner: { secret: '[REDACTED]', name: 'acme' } });
    expect(lines[2]).toMatchObject({ err: { type: 'Error', message: 'store refused', token: '[REDACTED]' } });
    expect(String((lines[2]!.err as { stack: string }).stack)).toMatch(/store refused/);
  });
});
