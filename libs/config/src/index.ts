export { loadConfig, parseConfig, ConfigError, env } from './load-config';
