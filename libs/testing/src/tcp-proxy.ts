import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** `host:port` of the proxy, for a connection string. */
  address: string;
  /** Drops every open connection and refuses new ones (resets them), like a dependency that went away. */
  down(): void;
  /** Accepts and forwards connections again. */
  up(): void;
  close(): Promise<void>;
}

/**
 * A TCP forwarder in front of a real server (database, Redis, NATS) that a test can take down and
 * bring back: the client under test sees real connection resets and refusals, the server keeps its data.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let isDown = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (isDown) return void client.resetAndDestroy();
    const upstream = net.connect(target.port, target.host);
    open.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    for (const s of [client, upstream]) s.on('error', close).on('close', close);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    down() {
      isDown = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    up() {
      isDown = false;
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
