import { isAppError } from '@lingua/errors';
import { lockouts, logins } from '@lingua/metrics';
import { signIn } from '../../domain/sign-in.use-case';

const OUTCOMES: Record<string, string> = {
  INVALID_CREDENTIALS: 'invalid_credentials',
  ACCOUNT_LOCKED: 'locked',
  RATE_LIMITED: 'rate_limited',
  EMAIL_NOT_VERIFIED: 'email_not_verified',
};

/**
 * signIn, counted for the operators (lingua_identity_logins_total by outcome, and
 * lingua_identity_lockouts_total when this failure is the one that locked the account). The use
 * case stays free of metrics; both login routes call this.
 */
export const measuredSignIn: typeof signIn = async (input, deps) => {
  try {
    const result = await signIn(input, deps);
    logins.inc({ outcome: 'success' });
    return result;
  } catch (err) {
    const code = isAppError(err) ? err.code : undefined;
    logins.inc({ outcome: (code && OUTCOMES[code]) ?? 'error' });
    // the failure that reaches the threshold comes back with its lockout time; later ones are ACCOUNT_LOCKED
    if (code === 'INVALID_CREDENTIALS' && isAppError(err) && err.details?.lockoutTime) lockouts.inc();
    throw err;
  }
};
