import { z } from 'zod';
import { mongoUrlField, natsServersField } from './connection-strings';

/** Raised when the environment does not satisfy a service's schema; names every offending variable. */
export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Secret values published in this repository: the CI compose render's placeholders (.ci/run) and the
 * built-in development keys (@lingua/auth, @lingua/bootstrap; a test keeps this list in step with
 * them). Anyone can read them, so a variable set to one is refused whatever NODE_ENV says; the
 * development keys still apply as defaults outside production when the variable is left unset.
 */
export const KNOWN_PLACEHOLDER_SECRETS: ReadonlySet<string> = new Set([
  'ci-placeholder-secret-0123456789abcdef',
  'ci-placeholder-assertion-key-0123456789',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
  'lingua-local-development-secret-do-not-use-in-production',
  ...['identity', 'flashcards', 'subscriptions', 'ai', 'notifications'].map(
    (audience) => `lingua-local-${audience}-assertion-key-do-not-use-in-production`,
  ),
  Buffer.from('lingua-dev-email-link-key-32byte').toString('base64'),
]);

function placeholderIssues(source: Record<string, string | undefined>) {
  return Object.entries(source)
    .filter(([, value]) => value !== undefined && KNOWN_PLACEHOLDER_SECRETS.has(value.trim()))
    .map(([variable]) => ({
      variable,
      message: 'is a placeholder published in this repository; generate a real secret',
    }));
}

/** Parses an environment-like record with the schema; throws ConfigError naming each bad variable. */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  source: Record<string, string | undefined>,
): Readonly<z.infer<S>> {
  const placeholders = placeholderIssues(source);
  const result = schema.safeParse(source);
  if (!result.success || placeholders.length > 0) {
    throw new ConfigError([
      ...placeholders,
      ...(result.error?.issues ?? []).map((issue) => ({
        variable: String(issue.path[0] ?? '(root)'),
        message: source[String(issue.path[0])] === undefined ? `missing (${issue.message})` : issue.message,
      })),
    ]);
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
    // A process must say which environment it is: a missing NODE_ENV used to mean development,
    // which switches on public development keys and sandbox verifiers. Records built by tests are
    // checked by their schema only (the schemas that choose defaults by it require it too).
    if (source === process.env && !source.NODE_ENV?.trim())
      throw new ConfigError([{ variable: 'NODE_ENV', message: NODE_ENV_MISSING }]);
    return parseConfig(schema, source);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

const NODE_ENV_MISSING =
  'missing: set NODE_ENV=production, development or test explicitly (development defaults never apply silently)';

/** Reusable field types, so every service spells the same kind of variable the same way. */
export const env = {
  /** development | production | test, with no default: development settings are never implied. */
  nodeEnv: () =>
    z.enum(['development', 'production', 'test'], {
      error: (issue) => (issue.input === undefined ? NODE_ENV_MISSING : undefined),
    }),
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

/**
 * The Redis variables every process reads (the gateway and each service): one server, or a
 * Sentinel set or a Cluster instead (docs/operations/configuration.md, "Redis"); @lingua/redis's parseRedisTarget reads them.
 */
export const redisEnv = {
  REDIS_URL: env.url('redis://127.0.0.1:6379'),
  REDIS_SENTINELS: z.string().optional(),
  REDIS_SENTINEL_MASTER: z.string().optional(),
  REDIS_SENTINEL_USERNAME: z.string().optional(),
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  REDIS_CLUSTER_NODES: z.string().optional(),
  REDIS_WAIT_REPLICAS: z.string().optional(),
};

/** localhost, 127.0.0.0/8, ::1, 0.0.0.0 and *.localhost: addresses that only reach the machine itself. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127\./.test(h) || h === '::1' || h === '0.0.0.0';
}

/** How a production guard checks one variable (see productionGuard). */
export type GuardRule =
  | { kind: 'url' }
  | { kind: 'host' }
  /** a list (comma-separated) that must not contain the development placeholder */
  | { kind: 'placeholder'; placeholder: string };

/**
 * Development defaults must not reach production silently (an e-mail link to 127.0.0.1, a
 * placeholder OAuth audience, an SMTP server on loopback): with NODE_ENV=production each variable
 * must be set explicitly, and not to a loopback address or the development placeholder. Only
 * checks; the service's own schema still parses the values.
 */
export function productionGuard(rules: Record<string, GuardRule>) {
  const shape = Object.fromEntries(Object.keys(rules).map((name) => [name, z.string().optional()]));
  return z.object({ NODE_ENV: env.nodeEnv(), ...shape }).superRefine((c, ctx) => {
    if (c.NODE_ENV !== 'production') return;
    const values = c as Record<string, string | undefined>;
    for (const [name, rule] of Object.entries(rules)) {
      const value = values[name]?.trim();
      const issue = (message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
      if (!value) {
        issue('required when NODE_ENV=production; the development default must not reach production');
        continue;
      }
      if (rule.kind === 'url') {
        // a malformed URL is the service's own schema's to report
        const host = URL.canParse(value) ? new URL(value).hostname : undefined;
        if (host !== undefined && isLoopbackHost(host))
          issue('must not point at a loopback address when NODE_ENV=production');
      } else if (rule.kind === 'host') {
        if (isLoopbackHost(value)) issue('must not be a loopback address when NODE_ENV=production');
      } else if (value.split(',').some((v) => v.trim() === rule.placeholder)) {
        issue(`must not contain the development placeholder ${rule.placeholder} when NODE_ENV=production`);
      }
    }
  });
}
