export { connectMongo, describeMongoUrl } from './connect';
export { watchMonitors } from './monitor-watchdog';
export type { MonitorWatchdog, MonitorWatchdogOptions } from './monitor-watchdog';
export type { MongoHandle } from './connect';
export { isDuplicateKeyError, mapDuplicateKeyError } from './duplicate-key';
export { findPage } from './find-page';
export type { PageOptions } from './find-page';
export { fileBucket, fileBucketIndexes } from './gridfs';
export type { FileBucket } from './gridfs';
export { buildIndexes, ensureIndexes, indexLabel, indexName } from './indexes';
export type { IndexBuild, IndexFailure, IndexSpec } from './indexes';
export { DELETED_USERS_COLLECTION, deletedUsers } from './deleted-users';
export type { DeletedUsers } from './deleted-users';
export {
  documentHasShardKey,
  filterIsTargeted,
  isSharded,
  platformShardDeclarations,
  renderShardScript,
  shardKeyFields,
  uniqueIndexConflicts,
  upsertIsTargeted,
} from './shard-keys';
export type {
  ShardDeclaration,
  ShardedDatabase,
  ShardedDeclaration,
  UniqueIndexConflict,
} from './shard-keys';
