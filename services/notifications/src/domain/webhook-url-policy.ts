import ipaddr from 'ipaddr.js';

export const MAX_URL_LENGTH = 2048;

/** True for a public unicast address; loopback, private, link-local, CGNAT, multicast, reserved… are not. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns ::ffff:10.0.0.1 into 10.0.0.1, so a mapped address cannot sneak past
  return ipaddr.process(address).range() === 'unicast';
}

/** The reason a URL's shape is refused (before any DNS), or null. */
export function urlShapeProblem(raw: string): string | null {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not contain credentials';
  if (!url.hostname) return 'must have a host';
  return null;
}

/** Host of a URL without IPv6 brackets. */
export const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

/**
 * The reason a target is refused, or null: only http(s), and (unless private targets are allowed)
 * every address the host resolves to must be public, so a webhook cannot reach internal services.
 * Delivery checks again on the address actually connected to (DNS can change in between).
 */
export async function webhookUrlProblem(
  raw: string,
  deps: { allowPrivate: boolean; resolve: (host: string) => Promise<string[]> },
): Promise<string | null> {
  const shape = urlShapeProblem(raw);
  if (shape || deps.allowPrivate) return shape;
  const host = hostOf(raw);
  if (ipaddr.isValid(host))
    return isPublicAddress(host) ? null : 'must not point at a private, loopback or link-local address';
  let addresses: string[];
  try {
    addresses = await deps.resolve(host);
  } catch {
    return 'host does not resolve';
  }
  if (addresses.length === 0) return 'host does not resolve';
  if (!addresses.every(isPublicAddress)) return 'must not point at a private, loopback or link-local address';
  return null;
}
