import { ConnectionString } from 'mongodb-connection-string-url';
import { z } from 'zod';

const validPort = (port: string) => /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535;

/** `host`, `host:port` or `[v6]:port`; an empty host or a port out of range is an error message. */
function hostProblem(host: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(.*))?$/.exec(host);
  if (!m) return `"${host}" is not host[:port]`;
  if (m[2] !== undefined && !validPort(m[2])) return `"${host}" has an invalid port`;
  return undefined;
}

/**
 * Parses a MongoDB connection string the way the driver does (its own `mongodb-connection-string-url`):
 * any number of hosts, `mongodb+srv://`, credentials and options such as replicaSet, authSource or
 * tls. Throws with a readable reason when the string is not one. The URL is never rewritten: the
 * database each service uses is given to the driver as its `dbName` option.
 */
export function parseMongoUrl(url: string): { hosts: string[]; srv: boolean; options: string[] } {
  const cs = new ConnectionString(url);
  for (const host of cs.hosts) {
    const problem = host === '' ? 'empty host in the host list' : hostProblem(host);
    if (problem) throw new Error(problem);
  }
  return { hosts: cs.hosts, srv: cs.isSRV, options: [...new Set(cs.searchParams.keys())] };
}

const NATS_SCHEMES = new Set(['nats:', 'tls:']);

/**
 * The servers of a NATS seed list as operators hand it out: `nats://a:4222,nats://b:4222` (also a
 * single URL, `tls://`, credentials, or bare `host:port`). Throws naming the entry that is wrong.
 */
export function parseNatsServers(value: string): string[] {
  const servers = value.split(',').map((s) => s.trim());
  if (servers.some((s) => s === '')) throw new Error('empty entry in the server list');
  for (const server of servers) {
    let url: URL;
    try {
      url = new URL(server.includes('://') ? server : `nats://${server}`);
    } catch {
      throw new Error(`"${server}" is not a NATS server URL`);
    }
    if (!NATS_SCHEMES.has(url.protocol)) throw new Error(`"${server}": scheme must be nats:// or tls://`);
    if (!url.hostname) throw new Error(`"${server}" has no host`);
    if (url.port !== '' && !validPort(url.port)) throw new Error(`"${server}" has an invalid port`);
    if (url.pathname !== '' && url.pathname !== '/') throw new Error(`"${server}" must not have a path`);
  }
  return servers;
}

/** A zod string refined by a parser that throws: its message becomes the issue, under the variable. */
const checkedBy = (parse: (value: string) => unknown) =>
  z.string().superRefine((value, ctx) => {
    try {
      parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  });

/** `MONGO_URL`-like variables: any valid MongoDB connection string, kept as written. */
export const mongoUrlField = (fallback: string) => checkedBy(parseMongoUrl).default(fallback);

/** `NATS_URL`-like variables: one URL or a comma-separated seed list, kept as written. */
export const natsServersField = (fallback: string) => checkedBy(parseNatsServers).default(fallback);
