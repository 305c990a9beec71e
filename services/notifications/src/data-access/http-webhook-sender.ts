import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { SendResult, WebhookSender } from '../domain/attempt-delivery.use-case';
import { hostOf, isPublicAddress } from '../domain/webhook-url-policy';

const RESPONSE_SNIPPET_BYTES = 1024;

/**
 * A DNS lookup that refuses non-public addresses at connect time: the address checked is the one
 * connected to, so DNS rebinding after registration cannot reach internal services.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const allowed = addresses.filter((a) => isPublicAddress(a.address));
    if (allowed.length === 0)
      return callback(new Error(`${hostname} resolves to a non-public address`), '', 0);
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};

/** Resolves a host to every address (for registration-time URL checks). */
export async function resolveHost(host: string): Promise<string[]> {
  const records = await dns.promises.lookup(host, { all: true });
  return records.map((r) => r.address);
}

/**
 * Sends webhooks with node's HTTP client: no redirects followed (a 3xx is a failure), a total timeout,
 * keep-alive connections, and (unless private targets are allowed) only public addresses.
 */
export function httpWebhookSender(options: { timeoutMs: number; allowPrivate: boolean }): WebhookSender & {
  close(): void;
} {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
  return {
    send(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<SendResult>((resolve) => {
        const done = (r: Omit<SendResult, 'durationMs'>) => resolve({ ...r, durationMs: elapsed() });
        const fail = (error: string) =>
          done({ statusCode: null, error, retryAfter: undefined, abort: false, responseBody: null });
        const target = new URL(url);
        const host = hostOf(url);
        if (!options.allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host))
          return fail('target address is not public');
        const client = target.protocol === 'https:' ? https : http;
        const req = client.request(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': Buffer.byteLength(body) },
            agent: agents[target.protocol as 'http:' | 'https:'],
            timeout: options.timeoutMs,
            ...(!options.allowPrivate && { lookup: guardedLookup }),
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (c: Buffer) => {
              if (size < RESPONSE_SNIPPET_BYTES) chunks.push(c);
              size += c.length;
            });
            res.on('end', () =>
              done({
                statusCode: res.statusCode ?? null,
                error: null,
                retryAfter: res.headers['retry-after'],
                abort: res.headers['webhook-delivery'] === 'abort-message',
                responseBody: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_SNIPPET_BYTES) || null,
              }),
            );
            res.on('error', (err) => fail(err.message));
          },
        );
        const deadline = setTimeout(() => req.destroy(new Error('timeout')), options.timeoutMs);
        req.on('close', () => clearTimeout(deadline));
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', (err) =>
          fail(err.message || (err as NodeJS.ErrnoException).code || 'request failed'),
        );
        req.end(body);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
