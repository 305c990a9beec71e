import { z } from 'zod';
import { ConfigError, env, parseConfig } from './load-config';

const schema = z.object({ HTTP_PORT: env.port(3000), JWT_SECRET: env.secret(8), DEV_MODE: env.bool(false) });

describe('parseConfig', () => {
  it('When every value is valid, Then it returns typed, frozen config with defaults applied', () => {
    const cfg = parseConfig(schema, { JWT_SECRET: 'long-enough', DEV_MODE: 'yes' });
    expect(cfg).toEqual({ HTTP_PORT: 3000, JWT_SECRET: 'long-enough', DEV_MODE: true });
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it('When a required value is missing and another is malformed, Then the error names both variables', () => {
    expect.assertions(3);
    try {
      parseConfig(schema, { HTTP_PORT: 'eighty' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).issues.map((i) => i.variable).sort()).toEqual(['HTTP_PORT', 'JWT_SECRET']);
      expect((err as Error).message).toMatch(/JWT_SECRET: missing/);
    }
  });

  it('When a boolean has an unknown spelling, Then it is refused rather than read as false', () => {
    expect(() => parseConfig(schema, { JWT_SECRET: 'long-enough', DEV_MODE: 'maybe' })).toThrow(/DEV_MODE/);
  });
});
