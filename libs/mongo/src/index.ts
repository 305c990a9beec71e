export { connectMongo, databaseUrl } from './connect';
export type { MongoHandle } from './connect';
export { isDuplicateKeyError, mapDuplicateKeyError } from './duplicate-key';
