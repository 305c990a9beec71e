import { z } from 'zod';
import { ConfigError, env, parseConfig, productionGuard } from './load-config';

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

describe('productionGuard: development defaults never reach production silently', () => {
  const guard = productionGuard({
    PUBLIC_URL: { kind: 'url' },
    SMTP_HOST: { kind: 'host' },
    AUDIENCES: { kind: 'placeholder', placeholder: 'dev.example' },
  });
  const problems = (source: Record<string, string>) => {
    try {
      parseConfig(guard, source);
      return [];
    } catch (err) {
      return (err as ConfigError).issues.map((i) => i.variable).sort();
    }
  };
  const good = { PUBLIC_URL: 'https://app.lingua.com', SMTP_HOST: 'smtp.mail.com', AUDIENCES: 'a,b' };

  it('When NODE_ENV is not production, Then nothing is required', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ NODE_ENV: 'development', PUBLIC_URL: 'http://127.0.0.1:8080' })).toEqual([]);
  });

  it('When production leaves them unset, points at loopback or keeps the placeholder, Then each is named', () => {
    expect(problems({ NODE_ENV: 'production' })).toEqual(['AUDIENCES', 'PUBLIC_URL', 'SMTP_HOST']);
    for (const loopback of [
      'http://127.0.0.1:8080',
      'http://localhost',
      'http://[::1]:80',
      'http://app.localhost',
    ])
      expect(problems({ ...good, NODE_ENV: 'production', PUBLIC_URL: loopback })).toEqual(['PUBLIC_URL']);
    expect(problems({ ...good, NODE_ENV: 'production', SMTP_HOST: '127.0.0.1' })).toEqual(['SMTP_HOST']);
    expect(problems({ ...good, NODE_ENV: 'production', AUDIENCES: 'real, dev.example' })).toEqual([
      'AUDIENCES',
    ]);
    expect(problems({ ...good, NODE_ENV: 'production' })).toEqual([]);
  });
});
