export { loadConfig, parseConfig, ConfigError, env } from './load-config';
export { parseMongoUrl, parseNatsServers } from './connection-strings';
