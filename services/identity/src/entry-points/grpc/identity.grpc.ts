import { z } from 'zod';
import { parseInput } from '@lingua/errors';
import type { GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { type DeviceDeps, forgetRefusedToken, listDevices } from '../../domain/devices.use-case';
import type { UserRepository } from '../../domain/ports';
import { GetUserInput, getUser } from '../../domain/get-user.use-case';
import type { User } from '../../domain/user';

const toProto = (u: User) => ({
  user_id: u.id,
  email: u.email,
  username: u.username,
  role: u.role,
  subscription_status: u.subscriptionStatus,
  created_at: u.createdAt.toISOString(),
});

const DevicesInput = z.object({ userId: z.string().min(1).max(100) });
const RemoveDeviceInput = DevicesInput.extend({
  token: z.string().min(1).max(4096),
  refusedAt: z.iso.datetime({ offset: true }).transform((t) => new Date(t)),
});

/**
 * IdentityService: proto ↔ domain mapping only. notifications asks GetUser (webhook owners) and
 * the push devices (GetDevices, RemoveDevice: docs/adr/0026); ai the profile's languages
 * (GetUserLanguages); operators may call everything.
 */
export function registerIdentityGrpc(server: GrpcServer, deps: { users: UserRepository } & DeviceDeps): void {
  server.addService(
    loadPackage().lingua.identity.v1.IdentityService.service,
    {
      GetUser: async (req) => ({
        user: toProto(
          await getUser(
            parseInput(GetUserInput, { userId: req.user_id }, 'A user id or an e-mail is required'),
            deps,
          ),
        ),
      }),
      ResolveUser: async (req) => ({
        user: toProto(
          await getUser(
            parseInput(
              GetUserInput,
              req.key === 'email' ? { email: req.email } : { userId: req.user_id },
              'A user id or an e-mail is required',
            ),
            deps,
          ),
        ),
      }),
      GetDevices: async (req) => {
        const { userId } = parseInput(DevicesInput, { userId: req.user_id });
        // a deleted account is no longer found (its soft delete wiped the settings): nothing is sent
        const [user, devices] = await Promise.all([deps.users.findById(userId), listDevices(userId, deps)]);
        if (!user) return { devices: [], found: false };
        return {
          found: true,
          push_notifications: user.settings.pushNotifications,
          email_notifications: user.settings.emailNotifications,
          email: user.email,
          language: user.profile.preferredLanguage ?? '',
          devices: devices.map((d) => ({
            device_id: d.id,
            platform: d.platform,
            token: d.token,
            app_version: d.appVersion ?? '',
            locale: d.locale ?? '',
            last_seen_at: d.lastSeenAt.toISOString(),
          })),
        };
      },
      // the AI service's defaults: which language a user's translations are in
      GetUserLanguages: async (req) => {
        const { userId } = parseInput(DevicesInput, { userId: req.user_id });
        const user = await deps.users.findById(userId);
        if (!user) return { found: false };
        return {
          found: true,
          preferred_language: user.profile.preferredLanguage ?? '',
          native_language: user.profile.nativeLanguage ?? '',
        };
      },
      RemoveDevice: async (req) => {
        const input = parseInput(RemoveDeviceInput, {
          userId: req.user_id,
          token: req.token,
          refusedAt: req.refused_at,
        });
        return { removed: await forgetRefusedToken(input.userId, input.token, input.refusedAt, deps) };
      },
    },
    // notifications: whether a scope-all webhook's owner is still an admin; the push devices;
    // ai: the profile's languages
    {
      GetUser: ['notifications'],
      ResolveUser: [],
      GetDevices: ['notifications'],
      RemoveDevice: ['notifications'],
      GetUserLanguages: ['ai'],
    },
  );
}
