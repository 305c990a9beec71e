import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** What the stand-in does with one request: answer (status, JSON body, headers) or hang. */
export type Reply = { status: number; body: unknown; headers?: Record<string, string> } | 'hang';

/**
 * An OpenAI-compatible server on loopback (POST /v1/chat/completions, POST /v1/images/generations).
 * Tests queue replies; with none queued it answers `fallback`. Every request is recorded.
 */
export async function startOpenAiStandIn() {
  const requests: StandInRequest[] = [];
  const queue: Reply[] = [];
  let fallback: Reply = { status: 500, body: { error: { message: 'no reply queued' } } };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined });
      const reply = queue.shift() ?? fallback;
      if (reply === 'hang') return; // never answers: the client's timeout must fire
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies: Reply[]) => queue.push(...replies),
    setFallback: (reply: Reply) => {
      fallback = reply;
    },
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A chat completion whose message content is `content` (a string, or an object sent as JSON). */
export function chatReply(
  content: unknown,
  usage = { prompt_tokens: 120, completion_tokens: 80, total_tokens: 200 },
): Reply {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'stand-in',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: typeof content === 'string' ? content : JSON.stringify(content),
          },
        },
      ],
      usage,
    },
  };
}

/** An error the way OpenAI sends it; retry-after-ms keeps the client's back-off short in tests. */
export const errorReply = (status: number): Reply => ({
  status,
  body: { error: { message: `stand-in ${status}`, type: 'server_error' } },
  headers: { 'retry-after-ms': '10' },
});
