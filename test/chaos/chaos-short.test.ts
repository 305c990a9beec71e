import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePortRun } from '@lingua/testing';

const ROOT = path.resolve(__dirname, '../..');
/** Ports the topology takes from its base (deploy/local/start-cluster.js portPlan(base).size). */
const PORTS = 64;

function runChaos(portBase: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bench/chaos.js'], {
      cwd: ROOT,
      env: { ...process.env, CHAOS_SHORT: '1', CHAOS_PORT_BASE: String(portBase) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('chaos, short variant (bench/chaos.js against deploy/local/start-cluster.js)', () => {
  it('When replicas are restarted, killed (one between a store notification claim and its apply), NATS, Redis and the database restarted, the Redis primary killed, and the database held down for minutes under load, Then nothing acknowledged is lost, no event is lost, dead-lettered or applied twice, every store notification is applied, and the rolling restart costs no request', async () => {
    const { code, output } = await runChaos(await freePortRun(PORTS));
    // the table and figures, for whoever reads the test log
    process.stdout.write(`${output}\n`);

    expect(output).toMatch(
      /reconciliation: [1-9]\d* cards acknowledged, 0 lost; [1-9]\d* reviews acknowledged, 0 cards missing/,
    );
    expect(output).toMatch(
      /\d+ imported words acknowledged, 0 lost; \d+ subscriptions acknowledged, 0 not active/,
    );
    expect(output).toMatch(/webhooks: [1-9]\d* events expected, \d+ deliveries, 0 missing, 0 double-applied/);
    expect(output).toMatch(/0 failed signature checks/);
    // a subscriptions replica killed while it held a claimed notification: the store's retries apply it
    expect(output).toMatch(
      /store notifications: ([1-9]\d*) sent, \1 claims interrupted by SIGKILL .*; 0 unapplied notifications/,
    );
    // a reminder minute with a flashcards and a notifications replica killed as it strikes
    expect(output).toMatch(
      /study reminders: ([1-9]\d*) users due at .*; pushed once \1, 0 duplicated, 0 missed; 0 without exactly one in-app reminder/,
    );
    // the Redis primary SIGKILLed and left dead: the Sentinels promote a replica, every process follows
    expect(output).toMatch(
      /redis failover: primary \S+ SIGKILLed, \S+ promoted; authenticated requests failed for \d+\.\d s .*; [1-9]\d* logged-out tokens .*, 0 accepted after it; lockout survived: yes; login rate limit survived: (yes|not checked \(next minute\)); answers of 500: 0/,
    );
    // the target is under 5 s: the full run fails above it and does not meet it yet under its own
    // load (the Sentinels switch in 2-3 s, the loaded clients follow 4-5 s later), so the short run
    // only bounds it: the processes followed the failover by themselves
    expect(Number(/authenticated requests failed for (\d+\.\d) s/.exec(output)?.[1])).toBeLessThan(20);
    // the database down several times the retry budget after which consumers used to dead-letter
    // (~2.6 minutes on the default schedule; the short run sets a short one), with events on the bus
    const outage = /database outage: down (\d+) s; consumers used to give up after (\d+\.\d+) s/.exec(output);
    expect(outage).not.toBeNull();
    expect(Number(outage![1])).toBeGreaterThanOrEqual(3 * Number(outage![2]));
    expect(output).toMatch(/database outage: .*; events on the bus when it went: yes/);
    expect(output).toMatch(
      /events: 0 lost events \(0 dead-lettered, 0 never handled\); [1-9]\d* accounts deleted, 0 not erased; [1-9]\d* subscriptions bought, 0 roles not applied/,
    );
    expect(output).not.toMatch(/chaos: FAILED/);
    expect(output).toContain('chaos: passed');
    expect(code).toBe(0);
  }, 1_200_000); // some twenty processes started, restarted and killed against the clock
});
