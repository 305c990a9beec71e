import { z } from 'zod';
import { emailField, loginPasswordField, passwordField, usernameField } from '../../domain/credential-rules';

/** Group C (`/api/auth/*`) request bodies. */
const confirmed = <T extends z.ZodRawShape>(shape: T, field: 'password' | 'newPassword') =>
  z
    .object(shape)
    .strict()
    .superRefine((body, ctx) => {
      const b = body as Record<string, unknown>;
      if (b[field] !== b.confirmPassword)
        ctx.addIssue({ code: 'custom', path: ['confirmPassword'], message: 'Passwords do not match' });
    });

export const CatalogueRegisterBody = confirmed(
  {
    email: emailField,
    username: usernameField,
    password: passwordField,
    confirmPassword: z.string().max(1024),
  },
  'password',
);

export const CatalogueLoginBody = z
  .object({ email: emailField, password: loginPasswordField, rememberMe: z.boolean().optional() })
  .strict();

const opaqueToken = z.string().min(1, 'Token is required').max(512, 'Token is too long');

export const CatalogueLogoutBody = z
  .object({ refreshToken: opaqueToken.optional(), allDevices: z.boolean().optional() })
  .strict();

export const CatalogueRefreshBody = z.object({ refreshToken: opaqueToken.optional() }).strict();

export const VerifyEmailBody = z.object({ token: opaqueToken }).strict();

export const ForgotPasswordBody = z.object({ email: emailField }).strict();

export const ResetPasswordBody = confirmed(
  { token: opaqueToken, newPassword: passwordField, confirmPassword: z.string().max(1024) },
  'newPassword',
);

export const CatalogueGoogleBody = z
  .object({ idToken: z.string().max(8192).optional(), nonce: z.string().max(256).optional() })
  .strict();

export const PublicUser = z
  .object({
    id: z.uuid(),
    email: z.string(),
    username: z.string(),
    role: z.enum(['user', 'subscriber', 'admin']),
    subscriptionStatus: z.enum(['active', 'inactive', 'trial']),
    emailVerified: z.boolean(),
    authProvider: z.enum(['password', 'apple', 'google']),
    createdAt: z.string(),
    lastLoginAt: z.string().nullable(),
  })
  .meta({ id: 'User' });

export const CatalogueSessionData = z.object({
  user: PublicUser,
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresIn: z.number().int(),
});
export const MessageData = z.object({ message: z.string() });
