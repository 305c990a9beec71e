import ipaddr from 'ipaddr.js';

export const MAX_URL_LENGTH = 2048;

/**
 * Ranges ipaddr.js 1.x calls `unicast` that no webhook may reach. IPv4: 198.18.0.0/15 (benchmarking,
 * often routed inside data centres). IPv6 is checked by allow-list instead (global unicast
 * 2000::/3 only), so NAT64 64:ff9b:1::/48 (local-use, RFC 8215), IPv4-compatible ::a.b.c.d, 100::/64
 * and the like are refused whatever IPv4 address they embed; these are the special-purpose blocks
 * inside 2000::/3 that are not the public Internet (transition and IETF blocks, documentation, SRv6).
 */
const v4Cidr = (cidr: string) => ipaddr.parseCIDR(cidr) as [ipaddr.IPv4, number];
const v6Cidr = (cidr: string) => ipaddr.parseCIDR(cidr) as [ipaddr.IPv6, number];
const REFUSED_V4 = [v4Cidr('198.18.0.0/15')];
const REFUSED_V6 = [
  '2001::/23', // IETF protocol assignments: Teredo, benchmarking, ORCHID, AMT…
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4: embeds an IPv4 address
  '3fff::/20', // documentation (RFC 9637)
].map(v6Cidr);
const GLOBAL_UNICAST_V6 = v6Cidr('2000::/3');
const NAT64 = ['64:ff9b::/96', '64:ff9b:1::/48'].map(v6Cidr);

/** The IPv4 address an IPv6 address carries in its last 32 bits (NAT64, IPv4-compatible). */
function embeddedV4(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const p = v6.parts;
  return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
}

/** True for a public unicast address; loopback, private, link-local, CGNAT, multicast, reserved… are not. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns ::ffff:10.0.0.1 into 10.0.0.1, so a mapped address cannot sneak past
  const ip = ipaddr.process(address);
  if (ip.range() !== 'unicast') return false;
  if (ip.kind() === 'ipv4') return !REFUSED_V4.some((r) => (ip as ipaddr.IPv4).match(r));
  const v6 = ip as ipaddr.IPv6;
  return v6.match(GLOBAL_UNICAST_V6) && !REFUSED_V6.some((r) => v6.match(r));
}

/**
 * Why an address is refused, naming what it is when it is a translation of an IPv4 address (NAT64,
 * IPv4-compatible): those are refused whatever they embed, and the embedded address is named so
 * the owner sees which host it would have reached.
 */
export function addressProblem(address: string): string | null {
  if (isPublicAddress(address)) return null;
  if (ipaddr.IPv6.isValid(address)) {
    const v6 = ipaddr.IPv6.parse(address);
    const v4 = embeddedV4(v6).toString();
    if (NAT64.some((r) => v6.match(r)))
      return `must not be a NAT64 address (it embeds ${v4}); use the IPv4 address or a host name`;
    if (v6.parts.slice(0, 6).every((x) => x === 0) && (v6.parts[6] !== 0 || v6.parts[7]! > 1))
      return `must not be an IPv4-compatible IPv6 address (it embeds ${v4})`;
  }
  return 'must not point at a private, loopback or link-local address';
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
  if (ipaddr.isValid(host)) return addressProblem(host);
  let addresses: string[];
  try {
    addresses = await deps.resolve(host);
  } catch {
    return 'host does not resolve';
  }
  if (addresses.length === 0) return 'host does not resolve';
  for (const address of addresses) {
    const problem = addressProblem(address);
    if (problem) return problem;
  }
  return null;
}
