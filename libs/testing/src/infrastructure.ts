import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@lingua/logger';

/** The real local servers that `npm run infra:up` starts (or the machine already runs). */
export const mongoUrl = () =>
  process.env.MONGO_URL ?? `mongodb://127.0.0.1:${process.env.FERRETDB_PORT ?? 27017}`;
export const natsUrl = () => process.env.NATS_URL ?? `nats://127.0.0.1:${process.env.NATS_PORT ?? 4222}`;
export const redisUrl = () => process.env.REDIS_URL ?? `redis://127.0.0.1:${process.env.REDIS_PORT ?? 6379}`;

/** Tests share the servers, so every database, stream, consumer and key prefix gets a unique name. */
export function uniqueName(prefix: string): string {
  const run = process.env.LINGUA_TEST_RUN;
  const name = `${prefix}_${run ? `${run}_` : ''}${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  // the test environment removes what these names label when the file is done (jest-environment.js)
  const g = globalThis as { __linguaTestNames?: string[] };
  (g.__linguaTestNames ??= []).push(name);
  return name;
}

export function silentLogger(name = 'test'): Logger {
  return createLogger(name, {
    level: process.env.TEST_LOG_LEVEL ?? 'silent',
    destination: new Writable({ write: (_c, _e, cb) => cb() }),
  });
}

/** A logger at `info` whose lines (parsed JSON) the test can read. */
export function capturedLogger(name = 'test'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: createLogger(name, { level: 'info', destination }), lines };
}
