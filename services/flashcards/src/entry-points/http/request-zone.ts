import type { Request } from 'express';
import { isTimeZone } from '../../domain/learning/calendar';

/**
 * The caller's X-Timezone (the gateway answers 400 to a bad one; a direct caller's bad value is
 * ignored): the user's zone when their profile names none.
 */
export function requestZone(req: Request): string | undefined {
  // the answer depends on the header (a cache must not give one zone's "today" to another)
  req.res?.vary('X-Timezone');
  const tz = req.headers['x-timezone'];
  return isTimeZone(tz) ? tz : undefined;
}
