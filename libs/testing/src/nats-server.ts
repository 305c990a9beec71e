import { existsSync } from 'node:fs';
import { startRestartableProcess } from './restartable-process';

const binary = () =>
  ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find(existsSync) ??
  'nats-server';

/** A private nats-server with JetStream, for tests that stop and restart the broker (outages). */
export async function startNatsServer() {
  const proc = await startRestartableProcess(binary(), (port, dir) => [
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    '-js',
    '-sd',
    dir,
  ]);
  return { ...proc, url: `nats://127.0.0.1:${proc.port}` };
}
