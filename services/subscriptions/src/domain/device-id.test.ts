import { randomBytes, randomUUID } from 'node:crypto';
import { isStrongDeviceId } from './device-id';

describe('guest device ids', () => {
  it('When the client generated 128 random bits (UUID v4 or 22+ base64url), Then the id is accepted', () => {
    expect(isStrongDeviceId(randomUUID())).toBe(true);
    expect(isStrongDeviceId(randomUUID().toUpperCase())).toBe(true);
    expect(isStrongDeviceId(randomBytes(16).toString('base64url'))).toBe(true); // 22 characters
    expect(isStrongDeviceId(randomBytes(96).toString('base64url'))).toBe(true); // 128 characters
  });

  it('When the id is short, guessable or of another shape, Then it is refused', () => {
    for (const weak of [
      '',
      'device-123',
      'a',
      randomBytes(15).toString('base64url').slice(0, 21), // 21 characters
      'x'.repeat(129),
      '6ba7b810-9dad-11d1-80b4-00c04fd430c8', // UUID v1: a clock and a MAC address
      'dev.123:abc.def.ghi.jkl.mno', // characters outside base64url
    ])
      expect([weak, isStrongDeviceId(weak)]).toEqual([weak, false]);
  });
});
