import { z } from 'zod';
import {
  deviceIdField,
  emailField,
  languageField,
  loginPasswordField,
  passwordField,
  usernameField,
} from '../../domain/credential-rules';

/** Group A (`/api/v1/auth/*`) request bodies; the spec fixes their fields, so unknown ones are refused. */
export const RegisterBody = z
  .object({
    email: emailField,
    password: passwordField,
    username: usernameField,
    preferredLanguage: languageField.optional(),
    nativeLanguage: languageField.optional(),
    deviceId: deviceIdField.optional(),
  })
  .strict();

export const LoginBody = z
  .object({
    email: emailField,
    password: loginPasswordField,
    rememberMe: z.boolean().optional(),
    deviceId: deviceIdField.optional(),
  })
  .strict();

const tokenString = z.string().max(8192, 'Token is too long');
const shortString = z.string().max(256);

export const AppleBody = z
  .object({
    identityToken: tokenString.optional(),
    authorizationCode: shortString.optional(),
    userIdentifier: shortString.optional(),
    email: shortString.optional(),
    fullName: z
      .object({ givenName: z.string().max(100).nullish(), familyName: z.string().max(100).nullish() })
      .strict()
      .nullish(),
    /** The raw nonce the app hashed into its Apple request. */
    nonce: shortString.optional(),
    deviceId: deviceIdField.optional(),
  })
  .strict();

export const GoogleBody = z
  .object({
    idToken: tokenString.optional(),
    accessToken: tokenString.optional(),
    serverAuthCode: shortString.optional(),
    nonce: shortString.optional(),
    deviceId: deviceIdField.optional(),
  })
  .strict();

/** Response data (documentation and tests). */
export const AuthData = z
  .object({
    userId: z.uuid(),
    username: z.string(),
    email: z.string(),
    accessToken: z.string(),
    refreshToken: z.string(),
    expiresIn: z.number().int(),
    userRole: z.enum(['user', 'subscriber', 'admin']).optional(),
    subscriptionStatus: z.enum(['active', 'inactive', 'trial']).optional(),
    isNewUser: z.boolean().optional(),
    lastLoginAt: z.string().optional(),
    authProvider: z.enum(['apple', 'google']).optional(),
  })
  .meta({ id: 'AuthenticationData' });

export const RefreshData = z
  .object({
    accessToken: z.string(),
    refreshToken: z.string(),
    expiresIn: z.number().int(),
    tokenType: z.literal('Bearer'),
  })
  .meta({ id: 'RefreshData' });

export const LogoutData = z.object({ loggedOut: z.boolean(), tokenBlacklisted: z.boolean() });
