import { PROCESSED_EVENTS_COLLECTION } from '@lingua/events';
import {
  fileBucketIndexes,
  type IndexSpec,
  platformShardDeclarations,
  type ShardDeclaration,
} from '@lingua/mongo';
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

/** How each collection of the ai database is sharded, or why it is not (ADR 0030). */
export const aiShardKeys: ShardDeclaration[] = [
  {
    collection: 'images',
    key: { userId: 'hashed' },
    why: "a user's generated images, listed and cleaned up by user",
  },
  {
    collection: `${IMAGE_BUCKET}.files`,
    unsharded: "GridFS file metadata, one per image; MongoDB's advice: leave the files collection unsharded",
  },
  {
    collection: `${IMAGE_BUCKET}.chunks`,
    key: { files_id: 1, n: 1 },
    why: 'GridFS bytes: the standard chunks key, which its unique { files_id, n } index already has; every read and write names files_id',
  },
  ...platformShardDeclarations(PROCESSED_EVENTS_COLLECTION),
];
