import {
  CALL_ASSERTION_KEY,
  type CallerName,
  createCallSigner,
  devSigningKey,
  generateCallKeys,
  SERVICE_CALLERS,
  signingKeyFrom,
} from './call-identity';

const USAGE = `usage: sign-call <caller> <server>   prints the ${CALL_ASSERTION_KEY} header of one call (valid 60 s)
         (key: $<CALLER>_GRPC_SIGNING_KEY; unset = the development key, refused with NODE_ENV=production)
       sign-call --keygen <caller>   prints a new <CALLER>_GRPC_SIGNING_KEY and its <CALLER>_GRPC_PUBLIC_KEY
callers: ${[...SERVICE_CALLERS, 'operator'].join(', ')}
`;

const isCaller = (name: string | undefined): name is CallerName =>
  name === 'operator' || (SERVICE_CALLERS as readonly string[]).includes(name ?? '');

/**
 * `node dist/sign-call.js operator flashcards`: the metadata header an operator gives grpcurl
 * (`grpcurl -H "$(node libs/grpc/dist/sign-call.js operator flashcards)" ...`).
 */
export function runSignCall(args: readonly string[], env: NodeJS.ProcessEnv): { code: number; out: string } {
  const [first, second] = args;
  if (first === '--keygen' && isCaller(second)) {
    const { signingKey, publicKey } = generateCallKeys();
    const NAME = second.toUpperCase();
    return { code: 0, out: `${NAME}_GRPC_SIGNING_KEY=${signingKey}\n${NAME}_GRPC_PUBLIC_KEY=${publicKey}\n` };
  }
  if (!isCaller(first) || second === undefined || !/^[a-z]+$/.test(second)) return { code: 2, out: USAGE };
  const given = env[`${first.toUpperCase()}_GRPC_SIGNING_KEY`];
  if (!given && env.NODE_ENV === 'production')
    return { code: 1, out: `${first.toUpperCase()}_GRPC_SIGNING_KEY is required when NODE_ENV=production\n` };
  const key = given ? signingKeyFrom(given) : devSigningKey(first);
  return { code: 0, out: `${CALL_ASSERTION_KEY}: ${createCallSigner(first, key).assertionFor(second)}\n` };
}

if (require.main === module) {
  try {
    const { code, out } = runSignCall(process.argv.slice(2), process.env);
    (code === 0 ? process.stdout : process.stderr).write(out);
    process.exitCode = code;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
