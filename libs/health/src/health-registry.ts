export type CheckStatus = 'up' | 'down';

export interface CheckResult {
  status: CheckStatus;
  latencyMs: number;
  error?: string;
}

export interface HealthCheck {
  name: string;
  /** Resolves when the dependency answers; rejects (or exceeds timeoutMs) when it does not. */
  check(): Promise<void>;
  /** Optional dependencies are reported but do not make the service not-ready. */
  optional?: boolean;
}

export interface HealthReport {
  status: 'ok' | 'degraded' | 'error';
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/** How long an optional check may take before it is reported down. */
export const OPTIONAL_TIMEOUT_MS = 500;

/**
 * Liveness says the process runs; readiness says every required dependency answers now.
 * Checks run in parallel, each bounded by a timeout, so a hung dependency cannot hang the probe.
 */
export class HealthRegistry {
  private readonly checks: HealthCheck[] = [];

  constructor(private readonly timeoutMs = 2_000) {}

  register(check: HealthCheck): this {
    this.checks.push(check);
    return this;
  }

  async report(): Promise<HealthReport> {
    const results = await Promise.all(this.checks.map((c) => this.run(c)));
    const checks = Object.fromEntries(this.checks.map((c, i) => [c.name, results[i]!]));
    const requiredDown = this.checks.some((c, i) => !c.optional && results[i]!.status === 'down');
    const anyDown = results.some((r) => r.status === 'down');
    return { status: requiredDown ? 'error' : anyDown ? 'degraded' : 'ok', ready: !requiredDown, checks };
  }

  private async run(check: HealthCheck): Promise<CheckResult> {
    const started = performance.now();
    // an optional check only informs: a dependency waiting through a failover must not hold the
    // probe's answer until a load balancer's check timeout takes the replica out anyway (ADR 0034)
    const limit = check.optional ? Math.min(this.timeoutMs, OPTIONAL_TIMEOUT_MS) : this.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        check.check(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${limit} ms`)), limit);
        }),
      ]);
      return { status: 'up', latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      return {
        status: 'down',
        latencyMs: Math.round(performance.now() - started),
        error: (err as Error).message,
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
