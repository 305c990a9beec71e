import { z } from 'zod';

/** Field rules of the spec, shared by Group A and Group C bodies. */
export const emailField = z
  .string()
  .trim()
  .max(254, 'E-mail must be at most 254 characters')
  .pipe(z.email('Must be a valid e-mail address'))
  .transform((e) => e.toLowerCase());

export const passwordField = z
  .string()
  .min(8, 'Password must be at least 8 characters')
  // bcrypt reads 72 bytes at most: longer passwords would be silently truncated
  .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, 'Password must be at most 72 bytes')
  .refine((p) => /[A-Z]/.test(p), 'Password must contain an upper-case letter')
  .refine((p) => /[a-z]/.test(p), 'Password must contain a lower-case letter')
  .refine((p) => /[0-9]/.test(p), 'Password must contain a digit');

/** A password as typed at sign-in: no rules beyond a sane size (rules may have changed since). */
export const loginPasswordField = z.string().min(1, 'Password is required').max(1024, 'Password is too long');

export const usernameField = z
  .string()
  .min(3, 'Username must be 3 to 20 characters')
  .max(20, 'Username must be 3 to 20 characters')
  .regex(/^[A-Za-z0-9_]+$/, 'Username may contain only letters, digits and underscore');

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
const TWO_LETTERS = /^[a-z]{2}$/;

/**
 * Whether ICU knows the code. Guarded by the shape and caught because `DisplayNames.of` throws
 * RangeError on anything that is not a well-formed tag (a URL, an empty string), and zod runs
 * refinements even after the regex check failed.
 */
export function isKnownLanguageCode(code: string): boolean {
  if (!TWO_LETTERS.test(code)) return false;
  try {
    return languageNames.of(code) !== undefined;
  } catch {
    return false;
  }
}

export const languageField = z
  .string()
  .regex(TWO_LETTERS, 'Must be an ISO 639-1 language code (two lower-case letters)')
  // a code of the wrong shape already has its message
  .refine((code) => !TWO_LETTERS.test(code) || isKnownLanguageCode(code), 'Unknown ISO 639-1 language code');

export const timezoneField = z
  .string()
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'Must be an IANA time zone such as Europe/Berlin');

/** The guest device an account is created from (informational: subscriptions attaches a guest purchase only on its receipt). */
export const deviceIdField = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'Device id may contain letters, digits and . _ : -');
