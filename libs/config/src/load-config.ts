import { z } from 'zod';
import { mongoUrlField, natsServersField } from './connection-strings';

/** Raised when the environment does not satisfy a service's schema; names every offending variable. */
export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment-like record with the schema; throws ConfigError naming each bad variable. */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  source: Record<string, string | undefined>,
): Readonly<z.infer<S>> {
  const result = schema.safeParse(source);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '(root)'),
        message: source[String(issue.path[0])] === undefined ? `missing (${issue.message})` : issue.message,
      })),
    );
  }
  return Object.freeze(result.data) as Readonly<z.infer<S>>;
}

/**
 * Parses process.env once at boot. A bad or missing value stops the process with exit code 1 and a
 * message naming the variable: failing fast beats running half-configured.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  source: Record<string, string | undefined> = process.env,
): Readonly<z.infer<S>> {
  try {
    return parseConfig(schema, source);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** Reusable field types, so every service spells the same kind of variable the same way. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: (fallback?: string) => (fallback === undefined ? z.url() : z.url().default(fallback)),
  /** Any MongoDB connection string (several hosts, mongodb+srv, options); see parseMongoUrl. */
  mongoUrl: mongoUrlField,
  /** One NATS URL or a comma-separated seed list (`nats://a:4222,nats://b:4222`). */
  natsServers: natsServersField,
  /** host:port of a gRPC peer */
  addr: (fallback: string) =>
    z
      .string()
      .regex(/^[\w.-]+:\d{1,5}$/, 'expected host:port')
      .default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(fallback),
  string: (fallback: string) => z.string().min(1).default(fallback),
  secret: (minLength = 32) => z.string().min(minLength, `must be at least ${minLength} characters`),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};
