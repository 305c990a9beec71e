// `npm run test:containers`: the compose stack in real containers (compose.test.ts). Its own config
// so the main `npm test` never picks it up (jest.config.js ignores this folder): it builds images,
// needs root for podman, and takes minutes.
const base = require('../../jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  rootDir: base.rootDir,
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  moduleNameMapper: base.moduleNameMapper,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/containers/**/*.test.ts'],
  testTimeout: 120_000,
  maxWorkers: 1,
};
