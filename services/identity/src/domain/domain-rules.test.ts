import { emailField, languageField, passwordField, usernameField } from './credential-rules';
import { avatarLimitFor, sniffImageType } from './upload-avatar.use-case';
import { safeEqual } from './secrets';
import { generateUsername } from './social-sign-in.use-case';

describe('credential rules', () => {
  it('When a password lacks a class or passes 72 bytes, Then it is refused with a message per rule', () => {
    expect(passwordField.safeParse('Secret123').success).toBe(true);
    const weak = passwordField.safeParse('secret');
    expect(weak.success).toBe(false);
    expect(weak.error!.issues.map((i) => i.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/8/),
        expect.stringMatching(/upper/),
        expect.stringMatching(/digit/),
      ]),
    );
    expect(passwordField.safeParse(`Aa1${'é'.repeat(35)}`).success).toBe(false); // 73 bytes
  });

  it('When e-mails, usernames and languages are checked, Then the spec formats pass and others fail', () => {
    expect(emailField.parse('  Ann@Example.COM ')).toBe('ann@example.com');
    expect(emailField.safeParse('ann@').success).toBe(false);
    expect(usernameField.safeParse('ann_1').success).toBe(true);
    for (const bad of ['an', 'a'.repeat(21), 'ann-1', 'änn'])
      expect(usernameField.safeParse(bad).success).toBe(false);
    expect(languageField.safeParse('de').success).toBe(true);
    for (const bad of ['zz', 'DE', 'deu']) expect(languageField.safeParse(bad).success).toBe(false);
  });

  it('When a language is not a tag ICU accepts, Then it is refused, not thrown', () => {
    for (const bad of ['word', '', 'https://example.com/x', 'e\u0000', 'x'.repeat(10_000)]) {
      const result = languageField.safeParse(bad);
      expect(result.success).toBe(false);
      expect(result.error!.issues[0]!.message).toMatch(/ISO 639-1/);
    }
  });
});

describe('generated usernames', () => {
  it('When an e-mail is odd or missing, Then the username is still 3-20 letters, digits and underscores', () => {
    for (const email of ['a@x.com', 'very.long.name+tag@example.com', '!!!@x.com', undefined])
      expect(generateUsername(email, 'apple')).toMatch(/^[A-Za-z0-9_]{3,20}$/);
  });
});

describe('avatars', () => {
  it('When bytes are sniffed, Then JPEG, PNG and WebP are recognised and anything else is not', () => {
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffImageType(Buffer.from('89504e470d0a1a0a0000', 'hex'))).toBe('png');
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('webp');
    expect(sniffImageType(Buffer.from('<svg/>'))).toBeUndefined();
    expect(avatarLimitFor('user')).toBe(10 * 1024 * 1024);
    expect(avatarLimitFor('subscriber')).toBe(50 * 1024 * 1024);
  });
});

describe('constant-time comparison', () => {
  it('When strings differ in content or length, Then they are unequal', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
