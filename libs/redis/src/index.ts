export { connectRedis } from './connect';
export type { RedisHandle, RedisClient } from './connect';
export { countWithin, uncount, type CountResult } from './counters';
