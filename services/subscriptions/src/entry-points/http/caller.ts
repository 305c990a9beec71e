import type { Request, Response } from 'express';
import { optionalUser } from '@lingua/auth';
import { parseInput } from '@lingua/errors';
import { z } from 'zod';
import type { Caller } from '../../domain/owner';
import { deviceId as deviceIdSchema } from './subscriptions.schemas';

/** Guests may also name their device in this header (GET requests have no body). */
export const DEVICE_HEADER = 'x-device-id';

const DeviceHeader = z.object({ 'X-Device-ID': deviceIdSchema.optional() });

/**
 * The caller of a request: the verified token's user (if any) and the device id it names (query or
 * body first, else the header; a malformed one is a 400 like any other input). Naming a device
 * never moves its guest subscription to the account: that takes the purchase's receipt
 * (verify-receipt, signed in, from the same device).
 */
export function callerOf(req: Request, res: Response, deviceId: string | undefined): Caller {
  const user = optionalUser(res);
  const header = parseInput(DeviceHeader, { 'X-Device-ID': req.get(DEVICE_HEADER) })['X-Device-ID'];
  return { userId: user?.sub, role: user?.role, deviceId: deviceId ?? header };
}
