import { createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { env } from '@lingua/config';
import {
  type CallerName,
  devSigningKey,
  publicKeyFrom,
  SERVICE_CALLERS,
  type ServiceCaller,
  signingKeyFrom,
  type TrustedCallers,
} from '@lingua/grpc';

// The keys of the gRPC call identity (docs/adr/0018-grpc-call-identity.md). Outside production each
// defaults to a development key derived from the caller's name; production requires real ones.

const DEV_PUBLIC_KEYS = [...SERVICE_CALLERS, 'operator' as const].map((c) =>
  createPublicKey(devSigningKey(c)),
);
// explicit, as everywhere: development keys never apply silently
const NODE_ENV = env.nodeEnv();
// compose passes an unset optional variable as '': the same as unset
const optionalKey = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v : undefined));

const DEV_KEY_MESSAGE =
  'is a development key (anyone can derive it); generate one: node libs/grpc/dist/sign-call.js --keygen';

/** The key a variable holds, or undefined (with an issue when it is malformed or a development key). */
function keyOrIssue<K extends KeyObject>(
  ctx: z.RefinementCtx,
  variable: string,
  value: string | undefined,
  parse: (v: string) => K,
): K | undefined {
  if (value === undefined) return undefined;
  let key: K;
  try {
    key = parse(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', path: [variable], message: (err as Error).message });
    return undefined;
  }
  // a given key is meant to be a real one, whatever NODE_ENV says (as with the other secrets)
  const publicOf = (k: KeyObject) => (k.type === 'private' ? createPublicKey(k) : k);
  if (DEV_PUBLIC_KEYS.some((dev) => dev.equals(publicOf(key)))) {
    ctx.addIssue({ code: 'custom', path: [variable], message: DEV_KEY_MESSAGE });
    return undefined;
  }
  return key;
}

/**
 * `<SERVICE>_GRPC_SIGNING_KEY`: the private key a calling service signs its gRPC calls with. Only
 * that service holds it.
 */
export function grpcSigningKeyEnv(service: ServiceCaller) {
  const variable = `${service.toUpperCase()}_GRPC_SIGNING_KEY`;
  return z
    .object({ NODE_ENV, [variable]: optionalKey })
    .transform((c, ctx): { grpcSigningKey: KeyObject } => {
      const value = (c as Record<string, string | undefined>)[variable];
      if (value === undefined && c.NODE_ENV === 'production')
        ctx.addIssue({ code: 'custom', path: [variable], message: 'required when NODE_ENV=production' });
      return { grpcSigningKey: keyOrIssue(ctx, variable, value, signingKeyFrom) ?? devSigningKey(service) };
    });
}

/**
 * The public keys a gRPC server verifies callers with: `<CALLER>_GRPC_PUBLIC_KEY` of every calling
 * service but itself (required in production), and `OPERATOR_GRPC_PUBLIC_KEY` (optional there:
 * without it no operator can call).
 */
export function grpcCallersEnv(service: string) {
  const callers = SERVICE_CALLERS.filter((c) => c !== service);
  const variableOf = (c: CallerName) => `${c.toUpperCase()}_GRPC_PUBLIC_KEY`;
  const shape = Object.fromEntries(
    [...callers, 'operator' as const].map((c) => [variableOf(c), optionalKey]),
  );
  return z.object({ NODE_ENV, ...shape }).transform((c, ctx): { grpcCallers: TrustedCallers } => {
    const values = c as Record<string, string | undefined>;
    const grpcCallers: TrustedCallers = {};
    for (const caller of [...callers, 'operator' as const]) {
      const variable = variableOf(caller);
      const value = values[variable];
      const production = c.NODE_ENV === 'production';
      if (value === undefined && production && caller !== 'operator')
        ctx.addIssue({ code: 'custom', path: [variable], message: 'required when NODE_ENV=production' });
      const key =
        keyOrIssue(ctx, variable, value, publicKeyFrom) ??
        (production ? undefined : createPublicKey(devSigningKey(caller)));
      if (key) grpcCallers[caller] = key;
    }
    return { grpcCallers };
  });
}
