import { type CallSigner, createGrpcClient } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import type { PushPlatform } from '../domain/push-sender';
import type { UserReach } from '../domain/user-reach';

/**
 * Identity's answer on how to reach a user (IdentityService.GetDevices: devices, settings, e-mail,
 * language) and its RemoveDevice for tokens a provider refused. Not cached: a user who turned push
 * off must not get the next one. An unanswered question throws (the event is retried).
 */
export function userReachClient(options: {
  address: string;
  signer: CallSigner;
}): UserReach & { close(): void } {
  const client = createGrpcClient(loadPackage().lingua.identity.v1.IdentityService, options.address, {
    signer: options.signer,
    defaultDeadlineMs: 2_000,
    // reading, and forgetting a token refused before a time: both safe to repeat
    idempotentMethods: ['GetDevices', 'RemoveDevice'],
  });
  return {
    async reach(userId) {
      const r = await client.call('GetDevices', { user_id: userId });
      return {
        found: r.found,
        pushNotifications: r.push_notifications,
        emailNotifications: r.email_notifications,
        email: r.email,
        language: r.language,
        devices: r.devices
          .filter((d) => d.platform === 'ios' || d.platform === 'android')
          .map((d) => ({ platform: d.platform as PushPlatform, token: d.token, locale: d.locale })),
      };
    },
    async removeDevice(userId, token, refusedAt) {
      await client.call('RemoveDevice', { user_id: userId, token, refused_at: refusedAt.toISOString() });
    },
    close: () => client.close(),
  };
}
