import net from 'node:net';
import { startHttpServer } from './start-http-server';

/** Sends raw bytes and reads the whole answer (the server closes after a client error). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('requests node refuses before express', () => {
  it('When the URL is over the header limit or the request line is malformed, Then the answer is in the path envelope', async () => {
    const server = await startHttpServer((_req, res) => res.end('ok'), { port: 0 });
    try {
      const long = await raw(
        server.port,
        `GET /api/v1/auth/me?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      expect(long).toMatch(/^HTTP\/1\.1 431 /);
      const body = JSON.parse(long.slice(long.indexOf('\r\n\r\n') + 4));
      expect(body).toMatchObject({
        success: false,
        error: { code: 'INVALID_INPUT', message: expect.any(String) },
        meta: { requestId: expect.any(String) },
      });

      const bad = await raw(server.port, 'NOT A REQUEST\r\n\r\n');
      expect(bad).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(bad.slice(bad.indexOf('\r\n\r\n') + 4))).toMatchObject({
        success: false,
        error: { code: 'VAL002' },
      });
    } finally {
      await server.close(100);
    }
  });
});
