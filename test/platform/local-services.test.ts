import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePortRun, waitForPort } from '@lingua/testing';

// The launcher is plain CommonJS (it runs before anything is built), so it is required as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { haproxyConfig, portPlan } = require('../../deploy/local/start-cluster.js') as {
  haproxyConfig(dir: string, plan: unknown): string;
  portPlan(base: number): {
    services: Record<string, { grpc: number; replicas: { http: number; grpc: number }[] }>;
  };
};

// `npm run start:cluster` runs each "Kubernetes Service" as HAProxy with the config under test. A
// replica just killed is still marked ready until its checks fail: here its readiness port keeps
// answering while its gRPC port refuses, so that state lasts the whole test.
describe("the local cluster's Services (HAProxy, as start-cluster.js configures it)", () => {
  const closers: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it('When a replica refuses connections before its checks mark it down, Then each connection goes to the other replica at once', async () => {
    const plan = portPlan(await freePortRun(60));
    const identity = plan.services.identity!;
    const [alive, killed] = identity.replicas as [
      { http: number; grpc: number },
      { http: number; grpc: number },
    ];
    const listen = async (server: net.Server, port: number) => {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    };
    for (const replica of [alive, killed])
      await listen(
        http.createServer((_req, res) => res.writeHead(200).end('ready')),
        replica.http,
      );
    // HAProxy resets the server side of a connection its client dropped (waitForPort's probe)
    await listen(
      net.createServer((socket) => socket.on('error', () => undefined).end('alive\n')),
      alive.grpc,
    );

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lingua-haproxy-'));
    closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'haproxy.cfg'), haproxyConfig(dir, plan));
    const haproxy: ChildProcess = spawn('haproxy', ['-db', '-f', path.join(dir, 'haproxy.cfg')], {
      stdio: 'ignore',
    });
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          if (haproxy.exitCode !== null) return resolve();
          haproxy.once('exit', () => resolve());
          haproxy.kill('SIGTERM');
        }),
    );
    await waitForPort(identity.grpc, 10_000);

    const answer = () =>
      new Promise<{ text: string; ms: number }>((resolve, reject) => {
        const started = performance.now();
        let text = '';
        const socket = net.connect(identity.grpc, '127.0.0.1');
        socket.setEncoding('utf8');
        socket.on('data', (d) => (text += d));
        socket.on('end', () => resolve({ text, ms: performance.now() - started }));
        socket.on('error', reject);
      });
    // round robin: every other connection is first sent to the killed replica
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await answer());
    expect(answers.map((a) => a.text)).toEqual(Array(8).fill('alive\n'));
    // not after a retry on the same server, which would first wait HAProxy's turn-around second
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(900);
  }, 30_000);
});
