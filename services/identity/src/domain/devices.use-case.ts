import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import type { Clock } from '@lingua/auth';

/** A phone or tablet the user's push notifications go to (APNs for iOS, FCM for Android). */
export interface Device {
  id: string;
  userId: string;
  platform: DevicePlatform;
  token: string;
  appVersion: string | null;
  locale: string | null;
  createdAt: Date;
  /** When the app last registered it (every start does): the least recently seen goes first. */
  lastSeenAt: Date;
}

export type DevicePlatform = 'ios' | 'android';

export const DEVICE_RULES = {
  /** Registering one more replaces the least recently seen. */
  maxPerUser: 20,
  /**
   * APNs device tokens are 32 bytes, sent as 64 hex characters; Apple says not to rely on the
   * length (newer devices may give longer ones), so any even number of hex characters up to 200.
   */
  apns: /^(?:[0-9a-fA-F]{2}){32,100}$/,
  /** FCM registration tokens: Firebase's URL-safe alphabet and ':' (about 150-180 today). */
  fcm: /^[A-Za-z0-9_:-]{100,4096}$/,
} as const;

/** Whether `token` can be a push token of `platform` (checked at the entry point). */
export const isPushToken = (platform: DevicePlatform, token: string) =>
  (platform === 'ios' ? DEVICE_RULES.apns : DEVICE_RULES.fcm).test(token);

/** Where devices are kept. One token belongs to one device of one user (a unique index). */
export interface DeviceStore {
  /** Updates the user's device holding `token`; null when the user has none with it. */
  touch(userId: string, token: string, update: DeviceUpdate): Promise<Device | null>;
  /** Removes `token` from any other user holding it (the phone is now signed in to `userId`). */
  releaseToken(token: string, userId: string): Promise<void>;
  /** Inserts; false when the token was taken meanwhile (a concurrent registration). */
  insert(device: Device): Promise<boolean>;
  /** Removes the user's devices beyond the `keep` most recently seen. */
  trim(userId: string, keep: number): Promise<void>;
  listOf(userId: string): Promise<Device[]>;
  /** Removes the user's device; false when the user has no such device. */
  remove(userId: string, deviceId: string): Promise<boolean>;
  /** Removes the user's device with `token` if it was last seen at or before `seenBy`. */
  removeToken(userId: string, token: string, seenBy: Date): Promise<boolean>;
  deleteAllOfUser(userId: string): Promise<void>;
}

export interface DeviceUpdate {
  platform: DevicePlatform;
  appVersion: string | null;
  locale: string | null;
  lastSeenAt: Date;
}

export interface DeviceDeps {
  devices: DeviceStore;
  clock: Clock;
}

export interface RegisterDeviceInput {
  platform: DevicePlatform;
  token: string;
  appVersion?: string | undefined;
  locale?: string | undefined;
}

/**
 * Registers the app's push token for the user, idempotently: the same token again updates the
 * device (app version, locale, last seen); a token another account holds moves to this one (the
 * phone signed in to another account, and only its current account may get its pushes); a 21st
 * device replaces the least recently seen. Concurrent registrations of one token make one device:
 * the loser of the unique index finds the winner's device and updates it.
 */
export async function registerDevice(
  userId: string,
  input: RegisterDeviceInput,
  deps: DeviceDeps,
): Promise<Device> {
  const update: DeviceUpdate = {
    platform: input.platform,
    appVersion: input.appVersion ?? null,
    locale: input.locale ?? null,
    lastSeenAt: deps.clock.now(),
  };
  // hex is case-blind: one APNs token in two spellings must be one device, not two
  const token = input.platform === 'ios' ? input.token.toLowerCase() : input.token;
  for (let attempt = 0; attempt < 5; attempt++) {
    const known = await deps.devices.touch(userId, token, update);
    if (known) return known;
    await deps.devices.releaseToken(token, userId);
    const device: Device = {
      id: randomUUID(),
      userId,
      token,
      createdAt: update.lastSeenAt,
      ...update,
    };
    if (await deps.devices.insert(device)) {
      await deps.devices.trim(userId, DEVICE_RULES.maxPerUser);
      return device;
    }
  }
  // only reachable while other accounts keep registering the same token at the same moment
  throw new AppError('CONFLICT', 'This push token is being registered by another request; try again');
}

export const listDevices = (userId: string, deps: DeviceDeps) => deps.devices.listOf(userId);

export async function removeDevice(userId: string, deviceId: string, deps: DeviceDeps): Promise<void> {
  if (!(await deps.devices.remove(userId, deviceId))) throw new AppError('NOT_FOUND', 'Device not found');
}

/**
 * A token the push provider refused (APNs 410 Unregistered / BadDeviceToken, FCM UNREGISTERED) at
 * `refusedAt` is removed, unless the app registered it again after that (APNs' advice: a token
 * registered after the refusal is valid again).
 */
export const forgetRefusedToken = (userId: string, token: string, refusedAt: Date, deps: DeviceDeps) =>
  deps.devices.removeToken(userId, token, refusedAt);
