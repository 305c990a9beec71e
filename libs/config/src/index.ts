export {
  loadConfig,
  parseConfig,
  ConfigError,
  env,
  redisEnv,
  isLoopbackHost,
  productionGuard,
  KNOWN_PLACEHOLDER_SECRETS,
} from './load-config';
export type { GuardRule } from './load-config';
export { parseMongoUrl, parseNatsServers } from './connection-strings';
