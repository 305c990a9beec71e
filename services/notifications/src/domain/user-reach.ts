import { LANGUAGES, type Language } from '@lingua/http';
import { type PushMessage, type PushPlatform, type PushSender, tokenIsDead } from './push-sender';

/** How a user can be reached, as identity knows it (its settings, e-mail, language and devices). */
export interface Reach {
  /** false: no such account (deleted): nothing may be sent. */
  found: boolean;
  pushNotifications: boolean;
  emailNotifications: boolean;
  email: string;
  /** The profile's language (BCP 47), '' when the user named none. */
  language: string;
  devices: { platform: PushPlatform; token: string; locale: string }[];
}

/** The port to identity: a user's reach, and forgetting a token a provider refused. */
export interface UserReach {
  reach(userId: string): Promise<Reach>;
  removeDevice(userId: string, token: string, refusedAt: Date): Promise<void>;
}

const supported = (tag: string | undefined): Language | undefined => {
  const base = tag?.toLowerCase().split(/[-_]/)[0];
  return (LANGUAGES as readonly string[]).includes(base ?? '') ? (base as Language) : undefined;
};

/** The language to write to the user in: the profile's, else the phone's, else English. */
export const languageOf = (reach: Reach): Language =>
  supported(reach.language) ?? supported(reach.devices[0]?.locale) ?? 'en';

/**
 * Pushes one message to each of the user's devices; a token the provider calls dead (APNs 410 or
 * BadDeviceToken, FCM UNREGISTERED) is removed with identity. Whether any device took it.
 */
export async function pushToDevices(
  userId: string,
  reach: Reach,
  message: Omit<PushMessage, 'platform' | 'token'>,
  deps: { push: PushSender; users: UserReach },
): Promise<boolean> {
  const outcomes = await Promise.all(
    reach.devices.map(async (device) => {
      const outcome = await deps.push.send({ ...message, platform: device.platform, token: device.token });
      if (tokenIsDead(outcome) && 'refusedAt' in outcome)
        await deps.users.removeDevice(userId, device.token, new Date(outcome.refusedAt));
      return outcome.outcome === 'sent';
    }),
  );
  return outcomes.some(Boolean);
}
