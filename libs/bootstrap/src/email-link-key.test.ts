import { parseConfig } from '@lingua/config';
import { DEV_EMAIL_LINK_KEY, emailLinkKeyEnv } from './service-env';

describe('EMAIL_LINK_KEY', () => {
  it('When unset outside production, Then the fixed development key is used', () => {
    expect(parseConfig(emailLinkKeyEnv, {}).emailLinkKey.toString('base64')).toBe(DEV_EMAIL_LINK_KEY);
  });

  it('When unset in production, Then the config is refused naming the variable', () => {
    expect(() => parseConfig(emailLinkKeyEnv, { NODE_ENV: 'production' })).toThrow(
      /EMAIL_LINK_KEY: .*required when NODE_ENV=production/,
    );
  });

  it('When set, Then it must be 32 bytes of base64', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(
      parseConfig(emailLinkKeyEnv, { NODE_ENV: 'production', EMAIL_LINK_KEY: key }).emailLinkKey,
    ).toHaveLength(32);
    expect(() =>
      parseConfig(emailLinkKeyEnv, { EMAIL_LINK_KEY: Buffer.alloc(16).toString('base64') }),
    ).toThrow(/EMAIL_LINK_KEY/);
    expect(() => parseConfig(emailLinkKeyEnv, { EMAIL_LINK_KEY: 'not base64!' })).toThrow(/EMAIL_LINK_KEY/);
  });
});
