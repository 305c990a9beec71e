import { sendImmutableFile } from '@lingua/http';
import { type RequestHandler, type Response, Router } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { currentUser } from '@lingua/auth';
import { AppError, parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import { type ApiDocs, declareRoutes } from '@lingua/openapi';
import { deleteAccount } from '../../domain/delete-account.use-case';
import type { IdentityDeps } from '../../domain/identity-deps';
import { POLICY } from '../../domain/policies';
import { getProfile, updateProfile, updateSettings } from '../../domain/profile.use-case';
import { discardAvatar, getAvatar, uploadAvatar } from '../../domain/upload-avatar.use-case';
import { MessageData, PublicUser } from './auth-catalogue.schemas';
import { profileData, publicUser } from './presenters';
import {
  AvatarParams,
  DeleteAccountBody,
  ProfileData,
  Settings,
  UpdateProfileBody,
  UpdateSettingsBody,
} from './users.schemas';

const P = '/api/users';

/**
 * Multipart parsing for the avatar: one file, streamed straight into the avatar store while it
 * arrives (never buffered whole), capped at the premium limit here and at the caller's own limit by
 * uploadAvatar; a few short text fields at most. multer calls `_removeFile` if the request fails
 * after the file was stored.
 */
function avatarUpload(deps: IdentityDeps): RequestHandler {
  const storage: multer.StorageEngine = {
    _handleFile(req, file, cb) {
      uploadAvatar(currentUser(req.res as Response).sub, file.stream, deps).then(
        (avatarName) => cb(null, { avatarName } as Partial<Express.Multer.File>),
        (err: unknown) => cb(err),
      );
    },
    _removeFile(_req, file, cb) {
      const { avatarName } = file as StoredFile;
      discardAvatar(avatarName, deps).then(
        () => cb(null),
        (err: unknown) => cb(err as Error),
      );
    },
  };
  const upload = multer({
    storage,
    limits: { fileSize: POLICY.avatarMaxBytes.premium, files: 1, fields: 10, fieldSize: 4096, parts: 12 },
  }).single('avatar');
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    upload(req, res, (err: unknown) => next(err ? toUploadError(err) : undefined));
  };
}

type StoredFile = Express.Multer.File & { avatarName: string };

function toUploadError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; field?: string };
  if (e.code === 'LIMIT_FILE_SIZE')
    return new AppError('PAYLOAD_TOO_LARGE', 'Avatar must be at most 50 MB', {
      details: { maxBytes: POLICY.avatarMaxBytes.premium },
    });
  if (e.code === 'LIMIT_UNEXPECTED_FILE')
    return new AppError('VALIDATION_ERROR', 'Validation failed', {
      details: { [e.field ?? 'file']: ['Only one file, in the field "avatar", is accepted'] },
    });
  return new AppError('INVALID_INPUT', 'Malformed multipart body', { cause: err });
}

/** Group C users: profile (with stats from flashcards), settings, avatar files, account deletion. */
export function usersRoutes(deps: IdentityDeps, authenticated: RequestHandler, docs: ApiDocs): Router {
  const router = Router();

  declareRoutes(router, docs, [
    {
      method: 'get',
      path: `${P}/profile`,
      summary:
        'The caller: user, profile (with settings) and card stats; stats null and degraded ["stats"] when flashcards is slow or down',
      auth: 'access',
      response: ProfileData,
      before: [authenticated],
      handler: async (_req, res) => {
        const { user, stats, degraded } = await getProfile(currentUser(res).sub, deps);
        sendSuccess(res, { user: publicUser(user), profile: profileData(user), stats, degraded });
      },
    },
    {
      method: 'put',
      path: `${P}/profile`,
      summary: 'Update profile fields and the avatar (JPEG/PNG/WebP; 10 MB free, 50 MB premium)',
      description:
        'timezone (IANA) is the zone the user’s days are counted in (today, streaks, daily-goal progress, stats periods); flashcards learns it first, so the change is 503 and nothing is stored when flashcards cannot be reached. Needs an access token (Authorization: Bearer).',
      auth: 'access',
      body: UpdateProfileBody,
      bodyType: 'multipart/form-data',
      response: z.object({ user: PublicUser, message: z.string() }),
      errors: { 409: 'RES002 username taken', 413: 'avatar too large' },
      before: [authenticated, avatarUpload(deps)],
      handler: async (req, res) => {
        const avatar = (req.file as StoredFile | undefined)?.avatarName;
        let input: z.infer<typeof UpdateProfileBody>;
        try {
          input = parseInput(UpdateProfileBody, req.body ?? {});
        } catch (err) {
          // the avatar is already stored: a request refused now must not leave it behind
          if (avatar) await discardAvatar(avatar, deps);
          throw err;
        }
        const user = await updateProfile(currentUser(res).sub, { ...input, avatar }, deps);
        sendSuccess(res, {
          user: { ...publicUser(user), profile: profileData(user) },
          message: 'Profile updated',
        });
      },
    },
    {
      method: 'put',
      path: `${P}/settings`,
      summary: 'Update learning and notification settings',
      description:
        'dailyGoal is the user’s one daily goal, kept by flashcards (GET/PUT /api/learning/settings show and change the same value); it is written there first, so the change is 503 and nothing is stored when flashcards cannot be reached. The answer shows the goal flashcards holds. Needs an access token (Authorization: Bearer).',
      auth: 'access',
      body: UpdateSettingsBody,
      response: z.object({ settings: Settings, message: z.string() }),
      before: [authenticated],
      handler: async (req, res) => {
        const input = parseInput(UpdateSettingsBody, req.body ?? {});
        const settings = await updateSettings(currentUser(res).sub, input, deps);
        sendSuccess(res, { settings, message: 'Settings updated' });
      },
    },
    {
      method: 'delete',
      path: `${P}/account`,
      summary: 'Delete the account (password confirmation); emits user.deleted',
      auth: 'access',
      body: DeleteAccountBody,
      response: MessageData,
      errors: { 401: 'AUTH003 wrong password' },
      before: [authenticated],
      handler: async (req, res) => {
        const body = parseInput(DeleteAccountBody, req.body ?? {});
        const user = currentUser(res);
        await deleteAccount(
          {
            userId: user.sub,
            password: body.password,
            reason: body.reason,
            accessJti: user.jti,
            accessExp: user.exp,
          },
          deps,
        );
        sendSuccess(res, { message: 'Account deleted' });
      },
    },
    {
      method: 'get',
      path: `${P}/avatars/:name`,
      summary: 'An avatar image (public, unguessable name)',
      auth: 'none',
      params: AvatarParams,
      download: { 'image/*': 'the image' },
      errors: { 404: 'not found' },
      handler: async (req, res) => {
        const { name } = parseInput(AvatarParams, req.params);
        const file = await getAvatar(name, deps);
        await sendImmutableFile(req, res, {
          name,
          contentType: `image/${file.type}`,
          length: file.length,
          content: file.content,
          cacheControl: 'public, max-age=31536000, immutable',
        });
      },
    },
  ]);

  return router;
}
