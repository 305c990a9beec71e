import { z } from 'zod';
import { DEVICE_RULES, isPushToken } from '../../domain/devices.use-case';

/** `POST /api/users/devices`: the app's push token, checked against its platform's format. */
export const RegisterDeviceBody = z
  .object({
    platform: z
      .enum(['ios', 'android'])
      .describe('ios: an APNs device token; android: an FCM registration token'),
    token: z
      .string()
      .min(1)
      .max(4096)
      .describe(
        'ios: the APNs device token as hex (64 characters today; up to 200 accepted); android: the FCM registration token ([A-Za-z0-9_:-], 100 to 4096 characters)',
      ),
    appVersion: z.string().trim().min(1).max(64).optional(),
    locale: z
      .string()
      .regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/, 'Must be a BCP 47 language tag such as de-DE')
      .max(35)
      .optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (!isPushToken(body.platform, body.token))
      ctx.addIssue({
        code: 'custom',
        path: ['token'],
        message:
          body.platform === 'ios'
            ? `Must be an APNs device token: 64 to 200 hex characters`
            : `Must be an FCM registration token: ${DEVICE_RULES.fcm.source}`,
      });
  });

export const DeviceParams = z.object({ deviceId: z.string().max(100) }).strict();

export const DeviceData = z.object({
  id: z.string(),
  platform: z.enum(['ios', 'android']),
  token: z.string(),
  appVersion: z.string().nullable(),
  locale: z.string().nullable(),
  createdAt: z.string().describe('ISO 8601 UTC'),
  lastSeenAt: z.string().describe('ISO 8601 UTC: the last registration of this token'),
});
