// The short chaos run (bench/chaos.js, CHAOS_SHORT=1): `npm test` runs it after the main suite, on
// its own, because it starts some twenty processes and restarts them against the clock; beside the
// suite's two workers its timings would measure the machine, not the system.
const base = require('../../jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  setupFilesAfterEnv: [],
  globalTeardown: '<rootDir>/libs/testing/src/jest-global-teardown.js',
  maxWorkers: 1,
};
