import { fileBucketIndexes, type IndexSpec } from '@lingua/mongo';
import { IMAGE_BUCKET } from './image.repository';

/**
 * Every index of the ai database, in one place: built and awaited at start (startService); one that
 * cannot be built keeps the service not-ready and is named in the log.
 */
export const aiIndexes: IndexSpec[] = [
  // a user's images, newest first (listing and clean-up by owner)
  { collection: 'images', key: { userId: 1, createdAt: -1 } },
  // the images' bytes (GridFS)
  ...fileBucketIndexes(IMAGE_BUCKET),
  // a deleted account's image files, found by owner
  { collection: `${IMAGE_BUCKET}.files`, key: { 'metadata.userId': 1 } },
];
