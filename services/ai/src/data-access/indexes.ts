import type { IndexSpec } from '@lingua/mongo';

/**
 * Every index of the ai database, in one place: built and awaited at start (startService); one that
 * cannot be built keeps the service not-ready and is named in the log.
 */
export const aiIndexes: IndexSpec[] = [
  // a user's images, newest first (listing and clean-up by owner)
  { collection: 'images', key: { userId: 1, createdAt: -1 } },
];
