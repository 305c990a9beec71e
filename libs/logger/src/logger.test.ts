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
});
