import type { Request, Response } from 'express';
import { optionalUser } from '@lingua/auth';
import { attachGuestSubscriptions } from '../../domain/attach-guest.use-case';
import type { Caller } from '../../domain/owner';
import type { SubscriptionsContext } from '../../domain/ports';

/** Guests may also name their device in this header (GET requests have no body). */
export const DEVICE_HEADER = 'x-device-id';

/**
 * The caller of a request: the verified token's user (if any) and the device id it names. A signed-in
 * caller naming a device whose subscription has no owner yet takes it over (guest → account rule).
 */
export async function callerOf(
  req: Request,
  res: Response,
  deviceId: string | undefined,
  ctx: SubscriptionsContext,
): Promise<Caller> {
  const user = optionalUser(res);
  const headerDevice = req.get(DEVICE_HEADER);
  const device =
    deviceId ?? (headerDevice && /^[\w.:-]{1,200}$/.test(headerDevice) ? headerDevice : undefined);
  if (user && device) await attachGuestSubscriptions({ userId: user.sub, deviceId: device }, ctx);
  return { userId: user?.sub, role: user?.role, deviceId: device };
}
