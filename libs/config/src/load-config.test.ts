import { z } from 'zod';
// test-only imports: the development keys live in the libs that use them (config depends on neither)
import { ASSERTION_AUDIENCES, DEV_JWT_SECRET, devAssertionKey } from '@lingua/auth';
import { DEV_EMAIL_LINK_KEY } from '@lingua/bootstrap';
import { ConfigError, env, KNOWN_PLACEHOLDER_SECRETS, parseConfig, productionGuard } from './load-config';

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
    expect(problems({ NODE_ENV: 'test' })).toEqual([]);
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

describe('NODE_ENV and placeholder secrets', () => {
  const issues = (schema: z.ZodType, source: Record<string, string | undefined>) => {
    try {
      parseConfig(schema, source);
      return [];
    } catch (err) {
      return (err as ConfigError).issues.map((i) => `${i.variable}: ${i.message}`);
    }
  };

  it('When NODE_ENV is missing, Then a guard refuses it (development is never implied)', () => {
    expect(issues(productionGuard({}), {})).toEqual([
      expect.stringMatching(/^NODE_ENV: missing.*explicitly/),
    ]);
    expect(issues(productionGuard({}), { NODE_ENV: 'development' })).toEqual([]);
  });

  it('When a variable holds a secret published in this repository, Then it is refused in every environment', () => {
    for (const NODE_ENV of ['development', 'test', 'production'])
      for (const [name, value] of [
        ['JWT_SECRET', 'ci-placeholder-secret-0123456789abcdef'],
        ['AI_ASSERTION_KEY', 'ci-placeholder-assertion-key-0123456789'],
        ['EMAIL_LINK_KEY', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
      ])
        expect(issues(z.object({}), { NODE_ENV, [name]: value })).toEqual([
          `${name}: is a placeholder published in this repository; generate a real secret`,
        ]);
    expect(issues(z.object({}), { JWT_SECRET: 'a-real-secret-0123456789abcdef-xyz' })).toEqual([]);
  });

  it('When the built-in development keys change, Then the placeholder list still holds them', () => {
    expect(KNOWN_PLACEHOLDER_SECRETS.has(DEV_JWT_SECRET)).toBe(true);
    expect(KNOWN_PLACEHOLDER_SECRETS.has(DEV_EMAIL_LINK_KEY)).toBe(true);
    for (const audience of ASSERTION_AUDIENCES)
      expect(KNOWN_PLACEHOLDER_SECRETS.has(devAssertionKey(audience))).toBe(true);
  });
});
