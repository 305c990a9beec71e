// `npm run test:platform`: what spans the system (test/platform, test/e2e, test/contract,
// test/observability, test/bench) and the tests that drive a tool `infra.sh up --test-tools`
// installs (Chromium, nginx, Prometheus, podman, the deployment contract checker).
const base = require('../../jest.config');
const { UNIT_OUTSIDE_SRC, PLATFORM_OUTSIDE_TEST, patterns } = require('./membership');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/**/*.test.ts', ...PLATFORM_OUTSIDE_TEST.map((f) => `<rootDir>/${f}`)],
  testPathIgnorePatterns: [
    ...base.testPathIgnorePatterns,
    '<rootDir>/test/lanes/',
    ...patterns(UNIT_OUTSIDE_SRC),
  ],
  // the OpenAPI conformance gate needs the whole suite; a lane checks only what it left behind
  globalTeardown: '<rootDir>/libs/testing/src/jest-global-teardown.js',
};
