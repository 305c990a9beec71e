// `npm run test:unit`: every test that needs nothing started (no database, NATS, Redis, Debian
// tools or build), so none of the main configuration's global setup (which checks the servers are
// reachable), per-file cleanup environment or leftover and OpenAPI gates apply.
const base = require('../../jest.config');
const { UNIT_OUTSIDE_SRC, SRC_NEEDING_MORE, patterns } = require('./membership');

/** @type {import('jest').Config} */
module.exports = {
  rootDir: base.rootDir,
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  moduleNameMapper: base.moduleNameMapper,
  testEnvironment: 'node',
  testMatch: [
    '<rootDir>/{libs,services,gateway}/**/src/**/*.test.ts',
    '<rootDir>/test/lanes/*.test.ts',
    ...UNIT_OUTSIDE_SRC.map((f) => `<rootDir>/${f}`),
  ],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', ...patterns(SRC_NEEDING_MORE)],
  testTimeout: base.testTimeout,
  maxWorkers: base.maxWorkers,
  workerIdleMemoryLimit: base.workerIdleMemoryLimit,
};
