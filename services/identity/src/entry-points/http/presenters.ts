import type { IssuedSession } from '../../domain/sessions';
import type { User } from '../../domain/user';

/** The public face of a user: never the password hash or internal fields. */
export const publicUser = (u: User) => ({
  id: u.id,
  email: u.email,
  username: u.username,
  role: u.role,
  subscriptionStatus: u.subscriptionStatus,
  emailVerified: u.emailVerified,
  authProvider: u.authProvider,
  createdAt: u.createdAt.toISOString(),
  lastLoginAt: u.lastLoginAt ? u.lastLoginAt.toISOString() : null,
});

/** Authentication data of the spec (Group A); callers add the fields their operation carries. */
export const authData = (u: User, s: IssuedSession) => ({
  userId: u.id,
  username: u.username,
  email: u.email,
  accessToken: s.accessToken,
  refreshToken: s.refreshToken,
  expiresIn: s.expiresIn,
});

export const profileData = (u: User) => ({ ...u.profile, settings: u.settings });
