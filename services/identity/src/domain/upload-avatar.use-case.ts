import { randomBytes } from 'node:crypto';
import { AppError } from '@lingua/errors';
import { AVATAR_NAME, type AvatarStore, type ImageType, type StoredAvatar } from './avatar-store';
import type { IdentityDeps } from './identity-deps';
import { POLICY } from './policies';
import type { User } from './user';

type AvatarDeps = Pick<IdentityDeps, 'users'> & { avatars: AvatarStore };

/** The image type from the file's first bytes (the declared type is the client's word, not proof). */
export function sniffImageType(data: Uint8Array): ImageType | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return 'webp';
  return undefined;
}

/** Bytes needed to tell the image type. */
const SNIFF_BYTES = 12;

export const avatarLimitFor = (role: User['role']) =>
  role === 'user' ? POLICY.avatarMaxBytes.free : POLICY.avatarMaxBytes.premium;

export const avatarUrl = (name: string) => `/api/users/avatars/${name}`;

/** The first `n` bytes of a stream (fewer if it is shorter), and the whole stream again, still unread past them. */
async function peek(content: AsyncIterable<Uint8Array>, n: number) {
  const it = content[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < n) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    size += next.value.byteLength;
  }
  const head = Buffer.concat(seen);
  async function* whole(): AsyncGenerator<Uint8Array> {
    if (head.length > 0) yield head;
    if (done) return;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  return { head, whole: whole() };
}

/** Passes the stream through and fails (413) as soon as it passes `limit` bytes. */
async function* capped(content: AsyncIterable<Uint8Array>, limit: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of content) {
    total += chunk.byteLength;
    if (total > limit)
      throw new AppError('PAYLOAD_TOO_LARGE', `Avatar must be at most ${limit / 1024 / 1024} MB`, {
        details: { maxBytes: limit },
      });
    yield chunk;
  }
}

/**
 * Streams an uploaded avatar into the store: the type is told from its first bytes (JPEG, PNG or
 * WebP), the caller's limit (10 MB free, 50 MB premium) is enforced while it arrives, and a refused
 * or broken upload leaves nothing stored. Returns the new avatar's name; the profile is not changed
 * yet (see updateProfile, which takes the name and removes it again if the update fails).
 */
export async function uploadAvatar(
  userId: string,
  content: AsyncIterable<Uint8Array>,
  deps: AvatarDeps,
): Promise<string> {
  const user = await deps.users.findById(userId);
  if (!user) throw new AppError('NOT_FOUND', 'User not found');
  const { head, whole } = await peek(content, SNIFF_BYTES);
  const type = sniffImageType(head);
  if (!type)
    throw new AppError('VALIDATION_ERROR', 'Validation failed', {
      details: { avatar: ['Avatar must be a JPEG, PNG or WebP image'] },
    });
  const name = `${randomBytes(18).toString('base64url')}.${type}`;
  await deps.avatars.save(name, userId, capped(whole, avatarLimitFor(user.role)));
  return name;
}

/** Removes an uploaded avatar that no profile will point to (the rest of the request failed). */
export async function discardAvatar(name: string, deps: Pick<AvatarDeps, 'avatars'>): Promise<void> {
  await deps.avatars.remove(name);
}

/** An avatar to serve by its public name; 404 for names that are not ours, without a lookup. */
export async function getAvatar(name: string, deps: Pick<AvatarDeps, 'avatars'>): Promise<StoredAvatar> {
  const found = AVATAR_NAME.test(name) ? await deps.avatars.open(name) : undefined;
  if (!found) throw new AppError('NOT_FOUND', 'Avatar not found');
  return found;
}
