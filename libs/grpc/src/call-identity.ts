import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { AppError } from '@lingua/errors';

// Who made a gRPC call, proven on every call (docs/adr/0018-grpc-call-identity.md): the caller
// signs a short-lived assertion {iss: caller, aud: server, exp} with its own Ed25519 key and sends
//   x-lingua-call: v1.<base64url(JSON {iss, aud, exp})>.<base64url(Ed25519(key_iss, "v1." + payload))>
// The server holds only public keys, so no server can forge its callers' calls to a third service.

/** Metadata key of the call assertion. */
export const CALL_ASSERTION_KEY = 'x-lingua-call';

/**
 * The services that call others over gRPC today, each with its own signing key. Every server knows
 * all their public keys, so one calling a method not allowed to it is told PERMISSION_DENIED (and
 * logged by name). A service that starts calling is added here, then to the allow-lists.
 */
export const SERVICE_CALLERS = ['identity', 'ai', 'notifications'] as const;
export type ServiceCaller = (typeof SERVICE_CALLERS)[number];
/** `operator`: a person with grpcurl (sign-call.ts), accepted on every method where its key is given. */
export type CallerName = ServiceCaller | 'operator';

/** Public keys of the callers a server can verify. */
export type TrustedCallers = Partial<Record<CallerName, KeyObject>>;

/** An assertion is valid this long and reused for half of it: one signature per 30 s per server. */
export const CALL_ASSERTION_LIFETIME_S = 60;
/** Clocks of two pods may differ this much. */
const CLOCK_SKEW_S = 5;

// DER headers of a raw 32-byte Ed25519 key (RFC 8410), so env values stay one short base64 line
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const KEY_HINT = 'must be an Ed25519 key: 32 bytes in base64 (node libs/grpc/dist/sign-call.js --keygen)';

function raw32(base64: string): Buffer {
  const bytes = Buffer.from(base64.trim(), 'base64');
  // Buffer.from ignores junk; the round trip does not
  if (bytes.length !== 32 || bytes.toString('base64') !== base64.trim()) throw new TypeError(KEY_HINT);
  return bytes;
}

/** A caller's private key from its env value (`<SERVICE>_GRPC_SIGNING_KEY`: the 32-byte seed). */
export function signingKeyFrom(base64: string): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, raw32(base64)]),
    format: 'der',
    type: 'pkcs8',
  });
}

/** A caller's public key from its env value (`<SERVICE>_GRPC_PUBLIC_KEY`). */
export function publicKeyFrom(base64: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw32(base64)]), format: 'der', type: 'spki' });
}

/** The env value of the public key that goes with a signing key. */
export function publicKeyOf(signingKey: KeyObject): string {
  return createPublicKey(signingKey).export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

/** A fresh key pair as env values. */
export function generateCallKeys(): { signingKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    signingKey: privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64'),
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
  };
}

/**
 * A fresh pair for every service caller as the environment names them (`<CALLER>_GRPC_SIGNING_KEY`,
 * `<CALLER>_GRPC_PUBLIC_KEY`): what a deployment's secrets hold, for tests and benches that run
 * production settings. Follows SERVICE_CALLERS, so a new caller needs no edit here.
 */
export function callerKeyEnv(): Record<string, string> {
  return Object.fromEntries(
    SERVICE_CALLERS.flatMap((caller) => {
      const { signingKey, publicKey } = generateCallKeys();
      const name = caller.toUpperCase();
      return [
        [`${name}_GRPC_SIGNING_KEY`, signingKey],
        [`${name}_GRPC_PUBLIC_KEY`, publicKey],
      ];
    }),
  );
}

/**
 * Outside production only: a key derived from the caller's name, so `npm start` and the tests need
 * no setup. Anyone can derive it, which is why production refuses to start without real keys.
 */
export function devSigningKey(caller: CallerName): KeyObject {
  const seed = createHash('sha256').update(`lingua-dev-grpc-call-key:${caller}`).digest();
  return signingKeyFrom(seed.toString('base64'));
}

/** Outside production only: the development public keys of these callers. */
export function devTrustedCallers(callers: readonly CallerName[]): TrustedCallers {
  return Object.fromEntries(callers.map((c) => [c, createPublicKey(devSigningKey(c))]));
}

export interface CallSigner {
  readonly caller: CallerName;
  /** The x-lingua-call value for a call to `audience` (a server's service name, e.g. 'flashcards'). */
  assertionFor(audience: string): string;
}

export function createCallSigner(
  caller: CallerName,
  signingKey: KeyObject,
  clock: () => number = Date.now,
): CallSigner {
  const reuse = new Map<string, { assertion: string; renewAt: number }>();
  return {
    caller,
    assertionFor(audience) {
      const now = clock();
      const hit = reuse.get(audience);
      if (hit && hit.renewAt > now) return hit.assertion;
      const exp = Math.floor(now / 1000) + CALL_ASSERTION_LIFETIME_S;
      const payload = Buffer.from(JSON.stringify({ iss: caller, aud: audience, exp })).toString('base64url');
      const signature = sign(null, Buffer.from(`v1.${payload}`), signingKey).toString('base64url');
      const assertion = `v1.${payload}.${signature}`;
      reuse.set(audience, { assertion, renewAt: now + (CALL_ASSERTION_LIFETIME_S * 1000) / 2 });
      return assertion;
    },
  };
}

/** Tests and benches: a signer with the caller's development key. */
export const devCallSigner = (caller: CallerName, clock?: () => number): CallSigner =>
  createCallSigner(caller, devSigningKey(caller), clock);

export interface CallVerifier {
  /** The proven caller; throws AppError UNAUTHORIZED (gRPC UNAUTHENTICATED) saying why not. */
  verify(assertion: string | undefined): CallerName;
}

const ASSERTION = /^v1\.([A-Za-z0-9_-]{1,512})\.([A-Za-z0-9_-]{86})$/;
const MAX_REMEMBERED = 1_000;

/**
 * Checks assertions addressed to `audience`. One that verified is remembered until it expires, so
 * a caller's reused assertion costs a map look-up, not a signature check, on every later call.
 */
export function createCallVerifier(
  audience: string,
  callers: TrustedCallers,
  clock: () => number = Date.now,
): CallVerifier {
  const accepted = new Map<string, { caller: CallerName; expMs: number }>();
  const refuse = (reason: string): never => {
    throw new AppError('UNAUTHORIZED', `gRPC call refused: ${reason}`);
  };
  const remember = (assertion: string, caller: CallerName, expMs: number, now: number) => {
    if (accepted.size >= MAX_REMEMBERED) {
      for (const [key, entry] of accepted) if (entry.expMs <= now) accepted.delete(key);
      if (accepted.size >= MAX_REMEMBERED) accepted.clear();
    }
    accepted.set(assertion, { caller, expMs });
  };
  return {
    verify(assertion) {
      const now = clock();
      if (assertion === undefined) return refuse(`no ${CALL_ASSERTION_KEY} assertion`);
      const known = accepted.get(assertion);
      if (known && known.expMs > now) return known.caller;
      const m = ASSERTION.exec(assertion);
      if (!m) return refuse('malformed assertion');
      let claims: { iss?: unknown; aud?: unknown; exp?: unknown };
      try {
        claims = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as typeof claims;
      } catch {
        return refuse('malformed assertion');
      }
      const { iss, aud, exp } = claims ?? {};
      if (aud !== audience) return refuse(`assertion addressed to ${String(aud)}, not ${audience}`);
      if (typeof exp !== 'number' || exp * 1000 <= now) return refuse('assertion expired');
      if (exp * 1000 > now + (CALL_ASSERTION_LIFETIME_S + CLOCK_SKEW_S) * 1000)
        return refuse('assertion lives too long');
      const key =
        typeof iss === 'string' && Object.hasOwn(callers, iss) ? callers[iss as CallerName] : undefined;
      if (key === undefined) return refuse(`unknown caller ${String(iss).slice(0, 64)}`);
      if (!verify(null, Buffer.from(`v1.${m[1]}`), key, Buffer.from(m[2]!, 'base64url')))
        return refuse('bad signature');
      remember(assertion, iss as CallerName, exp * 1000, now);
      return iss as CallerName;
    },
  };
}
