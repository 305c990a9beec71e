// One jest run covers every workspace. Tests import the shared libs from source (no build needed),
// and talk to the real FerretDB, NATS and Redis that `npm run infra:up` starts.
const fs = require('node:fs');
const path = require('node:path');

const libs = fs
  .readdirSync(path.join(__dirname, 'libs'))
  .filter((d) => fs.existsSync(path.join(__dirname, 'libs', d, 'package.json')));

/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  // removes each file's streams, databases and Redis keys after it (libs/testing/src/jest-environment.js)
  testEnvironment: '<rootDir>/libs/testing/src/jest-environment.js',
  transform: {
    '^.+\\.(t|j)sx?$|^.+\\.mjs$': ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }],
  },
  // ESM-only dependencies are compiled to CommonJS for jest's module system.
  transformIgnorePatterns: ['/node_modules/(?!(jose)/)'],
  moduleNameMapper: { [`^@lingua/(${libs.join('|')})(/.*)?$`]: '<rootDir>/libs/$1/src$2' },
  testMatch: ['<rootDir>/{libs,services,gateway}/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  // own configurations: the short chaos run (test/chaos, run after this one by npm test) and the
  // containers test (test/containers, npm run test:containers: builds images, needs podman)
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/chaos/', '<rootDir>/test/containers/'],
  globalSetup: '<rootDir>/libs/testing/src/jest-global-setup.js',
  // every JSON answer is checked against the OpenAPI document: in the whole suite (a gate in
  // test/global-teardown.js), or with OPENAPI_CONFORMANCE=<dir> (a report)
  setupFilesAfterEnv: ['<rootDir>/test/openapi-recorder.setup.ts'],
  // fails the run when anything it made is still there
  globalTeardown: '<rootDir>/test/global-teardown.js',
  reporters: ['default', '<rootDir>/libs/testing/src/summary-reporter.js'],
  testTimeout: 30000,
  maxWorkers: 2,
  // a worker that has grown past this after a file is replaced by a fresh one: modules required by
  // each file (five services and a gateway per stack) pile up in a long-lived worker, and one
  // reached node's 4 GB heap limit and crashed after some 160 files
  workerIdleMemoryLimit: '1536MB',
};
