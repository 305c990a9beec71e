import fs from 'node:fs';
import path from 'node:path';
import { promtool, RULE_TESTS_DIR, RULES_DIR } from './prometheus-tools';

const files = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .map((f) => path.join(dir, f));

describe('the Prometheus rules (deploy/prometheus)', () => {
  it('When checked by promtool, Then every rule file is valid', () => {
    const { status, output } = promtool(['check', 'rules', ...files(RULES_DIR)]);
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
    expect(status).toBe(0);
  });

  it("When the compose overlay's Prometheus configuration is checked, Then promtool accepts it", () => {
    const { status, output } = promtool(['check', 'config', 'deploy/prometheus/prometheus.yml']);
    expect(output).toMatch(/SUCCESS/);
    expect(status).toBe(0);
  });

  it('When unit-tested by promtool with synthetic series, Then the SLO burn-rate and platform alerts fire exactly as written', () => {
    const { status, output } = promtool(['test', 'rules', ...files(RULE_TESTS_DIR)]);
    expect(output).not.toMatch(/FAILED/);
    expect(status).toBe(0);
  });
});
