import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import { z } from 'zod';

/** express's `trust proxy` value: a hop count, or the addresses and ranges allowed to forward. */
export type TrustProxy = number | string[];

/**
 * `TRUST_PROXY`: which peers may tell this process the client's address (X-Forwarded-For), with
 * express's semantics (proxy-addr): a hop count (`1`: the one proxy in front), or a comma-separated
 * list of addresses, CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal`. Anything else
 * in X-Forwarded-For (what a client wrote itself) is ignored. Default `loopback` (`npm start`: the
 * gateway and services on one machine); Kubernetes sets the ingress's and the pods' ranges.
 */
export const trustProxyEnv = (fallback = 'loopback') =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx): TrustProxy => {
      const text = value.trim();
      if (/^\d+$/.test(text)) return Number(text);
      const list = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      try {
        proxyAddr.compile(list);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: `not a hop count or address list: ${(err as Error).message}`,
        });
        return z.NEVER;
      }
      return list;
    });

/**
 * The client's address as express's `req.ip` derives it with the same `trust proxy` value
 * (proxy-addr over the socket's peer and X-Forwarded-For), compiled once, for requests served
 * outside express. Undefined when the socket is already gone.
 */
export function clientAddressFor(trust: TrustProxy): (req: IncomingMessage) => string | undefined {
  const trusted: (addr: string, hop: number) => boolean =
    typeof trust === 'number' ? (_addr, hop) => hop < trust : proxyAddr.compile(trust);
  return (req) => proxyAddr(req, trusted);
}
