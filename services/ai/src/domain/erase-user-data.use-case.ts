import { z } from 'zod';
import type { ImageStore } from './image-store';

export const EraseUserDataInput = z.object({ userId: z.string().min(1), deletedAt: z.coerce.date() });

/** A user's usage counters (quotas, look-up windows). */
export interface UsageEraser {
  deleteAllOfUser(userId: string): Promise<number>;
}

/** Deleted accounts (the tombstone, kept so nothing recreates their data). */
export interface Tombstones {
  mark(userId: string, deletedAt: Date): Promise<void>;
}

/**
 * Erases everything the AI service holds about a user (on user.deleted): the images, descriptions
 * and bytes, and the usage counters. The tombstone goes first, so an image generation still under way
 * is refused when it stores its result. Idempotent: a redelivered event finds nothing left.
 */
export async function eraseUserData(
  input: z.output<typeof EraseUserDataInput>,
  deps: { images: Pick<ImageStore, 'deleteAllOfUser'>; usage: UsageEraser; tombstones: Tombstones },
): Promise<void> {
  await deps.tombstones.mark(input.userId, input.deletedAt);
  await deps.images.deleteAllOfUser(input.userId);
  await deps.usage.deleteAllOfUser(input.userId);
}
