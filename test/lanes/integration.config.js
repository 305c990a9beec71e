// `npm run test:integration`: the libraries' and services' own tests against the real FerretDB,
// NATS and Redis (`infra.sh up`), the AI service's Debian language data and the built dist/.
const base = require('../../jest.config');
const { UNIT_OUTSIDE_SRC, SRC_NEEDING_MORE, PLATFORM_OUTSIDE_TEST, patterns } = require('./membership');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: [
    '<rootDir>/{libs,services,gateway}/**/test/**/*.test.ts',
    ...SRC_NEEDING_MORE.map((f) => `<rootDir>/${f}`),
  ],
  testPathIgnorePatterns: [
    ...base.testPathIgnorePatterns,
    ...patterns([...UNIT_OUTSIDE_SRC, ...PLATFORM_OUTSIDE_TEST]),
  ],
  // the OpenAPI conformance gate needs the whole suite; a lane checks only what it left behind
  globalTeardown: '<rootDir>/libs/testing/src/jest-global-teardown.js',
};
