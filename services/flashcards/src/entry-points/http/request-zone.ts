import type { Request } from 'express';
import { isTimeZone } from '../../domain/learning/calendar';

/**
 * The caller's X-Timezone (the gateway answers 400 to a bad one; a direct caller's bad value is
 * ignored): the user's zone when their profile names none.
 */
export function requestZone(req: Request): string | undefined {
  const tz = req.headers['x-timezone'];
  return isTimeZone(tz) ? tz : undefined;
}
