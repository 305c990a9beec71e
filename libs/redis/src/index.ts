export {
  connectRedis,
  execDurably,
  waitForReplicas,
  deleteMatching,
  ReplicasUnavailableError,
} from './connect';
export type { RedisHandle, RedisClient } from './connect';
export {
  parseRedisTarget,
  describeRedisTarget,
  RedisConfigError,
  REDIS_ENV_NAMES,
  type RedisTarget,
  type RedisEnv,
  type RedisNodeAddress,
} from './target';
export { countWithin, uncount, type CountResult } from './counters';
