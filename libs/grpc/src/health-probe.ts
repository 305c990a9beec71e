import { checkGrpcHealth } from './check-grpc-health';

/**
 * `node dist/health-probe.js host:port [service] [timeoutMs]`: exit 0 when SERVING, 1 otherwise.
 * For container healthchecks, which can run a command but cannot speak gRPC.
 */
export async function runHealthProbe(args: readonly string[]): Promise<number> {
  const [address, service = '', timeout = '1000'] = args;
  if (address === undefined || !address.includes(':')) {
    process.stderr.write('usage: health-probe host:port [service] [timeoutMs]\n');
    return 1;
  }
  try {
    await checkGrpcHealth(address, Number(timeout) || 1000, service);
    process.stdout.write(`${address} SERVING\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  // Exit at once: a probe must not linger on open handles.
  void runHealthProbe(process.argv.slice(2)).then((code) => process.exit(code));
}
