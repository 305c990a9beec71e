import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '@lingua/errors';
import type { StoredImage } from './image-store';
import type { AiDeps } from './ai-deps';
import { UNLIMITED } from './ai-deps';
import { nextUtcMidnight, quotaExceeded, utcDay } from './quota-window';

export const DescribeImageInput = z.object({
  word: z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters'),
  context: z.string().trim().min(1).max(500, 'at most 500 characters').optional(),
});
export type DescribeImageInput = z.infer<typeof DescribeImageInput>;

export const CreateImageInput = z.object({
  description: z.string().trim().min(1, 'must not be empty').max(1_000, 'at most 1000 characters'),
});
export type CreateImageInput = z.infer<typeof CreateImageInput>;

export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

/** Stage 1: a description of an example image for a word (to show, edit, then render). */
export async function describeImage(input: DescribeImageInput, deps: AiDeps) {
  const result = await deps.provider.describeImage(input);
  return { ...result, provider: deps.provider.name };
}

export const imageUrl = (id: string) => `/api/ai/images/${id}`;

const view = (image: StoredImage) => ({
  id: image.id,
  url: imageUrl(image.id),
  contentType: image.contentType,
  width: image.width,
  height: image.height,
  description: image.description,
  provider: image.provider,
  createdAt: image.createdAt.toISOString(),
});

/** Stage 2: renders the image of a description, stores it and returns where it is served. */
export async function createImage(userId: string, input: CreateImageInput, deps: AiDeps) {
  const now = deps.clock.now();
  const day = utcDay(now);
  const { isPremium } = await deps.entitlements.forUser(userId);
  const limit = isPremium ? UNLIMITED : deps.limits.imagesPerDay;
  const { allowed } = await deps.quotas.reserveDaily('image', userId, day, limit);
  if (!allowed) throw quotaExceeded('Image generation', limit, nextUtcMidnight(now), now);
  try {
    const rendered = await deps.provider.renderImage(input);
    if (rendered.data.length === 0 || rendered.data.length > MAX_IMAGE_BYTES)
      throw new AppError('AI_PROVIDER_ERROR', 'The provider returned an unusable image', {
        details: { bytes: rendered.data.length },
      });
    // the account may have been deleted (and erased) while the image was rendered
    if (await deps.deletedUsers.isDeleted(userId))
      throw new AppError('TOKEN_BLACKLISTED', 'Token has been revoked');
    const stored = await deps.images.save(
      {
        id: randomUUID(),
        userId,
        description: input.description,
        provider: deps.provider.name,
        contentType: rendered.contentType,
        width: rendered.width,
        height: rendered.height,
        createdAt: now,
      },
      rendered.data,
    );
    return view(stored);
  } catch (err) {
    await deps.quotas.releaseDaily('image', userId, day);
    throw err;
  }
}

/** The stored image with a stream of its bytes; 404 when there is none. */
export async function getImage(id: string, deps: AiDeps) {
  const image = await deps.images.open(id);
  if (!image) throw new AppError('NOT_FOUND', 'Image not found');
  return image;
}
