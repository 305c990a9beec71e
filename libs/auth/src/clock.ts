/** Time as a dependency: rules that depend on it (expiry, lockouts, due dates) are tested by moving it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
