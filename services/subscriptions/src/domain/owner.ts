import { AppError } from '@lingua/errors';
import type { OwnerQuery } from './ports';

/** Who is asking: a signed-in user (token), or a guest known only by a device id. */
export interface Caller {
  userId?: string | undefined;
  role?: 'user' | 'subscriber' | 'admin' | undefined;
  deviceId?: string | undefined;
}

/** A registered caller is looked up by user id; a guest by device id (spec: optional operations). */
export function ownerOf(caller: Caller): OwnerQuery {
  if (caller.userId) return { userId: caller.userId };
  if (caller.deviceId) return { deviceId: caller.deviceId };
  throw new AppError('VALIDATION_ERROR', 'A device_id is required for guests', {
    details: { device_id: ['Required when no access token is sent'] },
  });
}

/** Key of the free-tier counters. */
export const usageKey = (caller: Caller) =>
  caller.userId ? `u:${caller.userId}` : `d:${caller.deviceId ?? ''}`;
