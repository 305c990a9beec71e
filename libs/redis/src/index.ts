export { connectRedis } from './connect';
export type { RedisHandle, RedisClient } from './connect';
