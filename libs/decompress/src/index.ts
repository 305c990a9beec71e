export { OutputBudget, DECOMPRESS_CHANNEL, malformed, isMalformed } from './budget';
export type { RefusedExpansion } from './budget';
export { decodeStream, decodeAll, CONTENT_CODINGS, isContentCoding } from './decode-stream';
export type { ContentCoding } from './decode-stream';
export { unzip } from './unzip';
export type { UnzipOptions } from './unzip';
export { readSqliteImage, sqliteDeclaredBytes } from './sqlite-image';
