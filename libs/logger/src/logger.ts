import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino from 'pino';
import { currentRequestContext } from './request-context';

export type Logger = pino.Logger;

const SECRET_KEYS = [
  'password',
  'newPassword',
  'confirmPassword',
  'currentPassword',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'identityToken',
  'authorizationCode',
  'serverAuthCode',
  'receipt_data',
  'new_receipt_data',
  'secret',
  'apiKey',
];

const CENSOR = '[REDACTED]';
const SECRET_KEY_SET = new Set(SECRET_KEYS);

/**
 * Secrets never reach a log line: at the top level and in request headers by pino's redaction
 * paths, one level down (`{ body: { password } }`) by `censorNested`. pino's wildcard paths
 * (`*.password`) did the latter at about 16 µs per line on this machine's kind (21 µs a line
 * against 5 without them); the check below costs well under one.
 */
export const REDACTED_PATHS = [
  ...SECRET_KEYS,
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
];

type Fields = Record<string, unknown>;

/**
 * A copy with the same prototype and own properties, all of them redefinable (the original may be
 * frozen): an error keeps its type, message and stack.
 */
function copyOf(value: object): Fields {
  const descriptors = Object.getOwnPropertyDescriptors(value);
  for (const d of Object.values(descriptors)) {
    d.configurable = true;
    if ('value' in d) d.writable = true;
  }
  const copy = Object.create(Object.getPrototypeOf(value) as object | null, descriptors) as Fields;
  // V8's stack accessor reads the original's hidden state: take its value
  if (value instanceof Error) Object.defineProperty(copy, 'stack', { value: value.stack, writable: true });
  return copy;
}

/** The object with each secret key of its nested objects censored; the object itself when none. */
function censorNested(obj: Fields): Fields {
  let out = obj;
  for (const key in obj) {
    const value = obj[key];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    let inner: Fields | undefined;
    for (const k in value)
      if (SECRET_KEY_SET.has(k) && (value as Fields)[k] !== undefined) {
        inner ??= copyOf(value);
        Object.defineProperty(inner, k, {
          value: CENSOR,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    if (inner) {
      if (out === obj) out = { ...obj };
      out[key] = inner;
    }
  }
  return out;
}

/** Bytes of log lines gathered before one write to stdout, and the longest a line waits for it. */
export const LOG_BUFFER_BYTES = 4096;
export const LOG_FLUSH_MS = 1000;
/** sonic-boom refuses a buffer that is not below its largest single write (16 KiB). */
const MAX_LOG_BUFFER_BYTES = 16_383;

let stdout: pino.DestinationStream | undefined;

/**
 * stdout, written in batches (ADR 0016): pino's default destination writes each line on its own
 * through libuv's thread pool (a write, an eventfd and a wake-up of the event loop per line), and
 * every request logs a line in the gateway and in its service. On this VM that was about 1 ms of
 * the stack's 11.6 ms of CPU per call of the journey mix (`npm run bench:journey`, LOG_LEVEL=warn
 * against info). Lines wait for 4 KB or at most a second; pino writes what is left when the process
 * exits, so a SIGKILL loses at most the last second of lines (and an exit, at most a chunk a full
 * pipe had not taken yet). One stream per process, shared by its loggers, so lines stay in order
 * and whole. `LOG_BUFFER_BYTES=0` writes each line.
 */
function stdoutInBatches(): pino.DestinationStream {
  if (stdout) return stdout;
  const fromEnv = process.env.LOG_BUFFER_BYTES;
  const minLength = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : LOG_BUFFER_BYTES;
  if (!Number.isInteger(minLength) || minLength < 0 || minLength > MAX_LOG_BUFFER_BYTES)
    throw new Error(
      `LOG_BUFFER_BYTES must be a whole number of bytes from 0 to ${MAX_LOG_BUFFER_BYTES}, not "${fromEnv}"`,
    );
  stdout = pino.destination({ dest: 1, sync: false, minLength, periodicFlush: minLength ? LOG_FLUSH_MS : 0 });
  return stdout;
}

/**
 * JSON logger for a service. Each line carries the service name, the request and correlation ids of
 * the unit of work in progress, and the active trace/span ids, so logs and traces join up.
 */
export function createLogger(
  service: string,
  options: { level?: string; destination?: pino.DestinationStream } = {},
): Logger {
  const logger = pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: CENSOR },
      formatters: { level: (label) => ({ level: label }), log: censorNested },
      mixin() {
        const ctx = currentRequestContext();
        const span = trace.getActiveSpan()?.spanContext();
        return {
          ...(ctx && { request_id: ctx.requestId, correlation_id: ctx.correlationId }),
          ...(span && isSpanContextValid(span) && { trace_id: span.traceId, span_id: span.spanId }),
        };
      },
    },
    options.destination ?? stdoutInBatches(),
  );
  // pino gives child loggers no bindings formatter, so their bindings are censored here; children
  // are created from this instance's prototype chain and inherit this `child`
  type ChildFn = (this: unknown, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => unknown;
  const child = logger.child as unknown as ChildFn;
  const censoredChild: ChildFn = function (bindings, childOptions) {
    return child.call(this, censorNested(bindings), childOptions);
  };
  logger.child = censoredChild as unknown as Logger['child'];
  return logger;
}
