// Runs once after all tests: the shared check that nothing was left behind (@lingua/testing), then,
// for the whole suite, the OpenAPI conformance gate: every JSON answer the tests received from our
// servers matched the document, every operation of the public document had such an answer, and
// every operation got a documented success answer through a gateway, as its real caller gets it
// (`node scripts/openapi-conformance-report.js <dir> <dir>/document.openapi` prints it per operation).
const fs = require('node:fs');
const path = require('node:path');
const leftovers = require('../libs/testing/src/jest-global-teardown');
const { summarize } = require('../scripts/openapi-conformance');

/** Where test/contract/openapi-lint.test.ts puts the public document it linted. */
const DOCUMENT = 'document.openapi';

module.exports = async function globalTeardown(globalConfig) {
  await leftovers(globalConfig);
  const dir = process.env.OPENAPI_CONFORMANCE;
  if (!process.env.OPENAPI_CONFORMANCE_GATE || !dir || !fs.existsSync(dir)) return;
  try {
    const { validated, throughGateway, failures, unchecked, operations, missing, notThroughGateway } =
      summarize(dir, path.join(dir, DOCUMENT));
    if (!operations)
      throw new Error('OpenAPI conformance: the public document was not saved (openapi-lint test)');
    const problems = [
      ...failures.map(
        (f) => `answer not matching the document: ${f.method} ${f.path} ${f.status} (${f.file})`,
      ),
      ...missing.map((op) => `operation without a validated answer: ${op}`),
      ...notThroughGateway.map(
        (op) => `operation no test drove to a documented success through the gateway: ${op}`,
      ),
    ];
    if (problems.length > 0)
      throw new Error(
        `OpenAPI conformance: ${problems.length} problems\n  ${problems.slice(0, 40).join('\n  ')}`,
      );
    console.log(
      `OpenAPI conformance: ${validated.size} operations with a validated answer, all ${operations.length} of the document; ${throughGateway.size} with a documented success through the gateway (100 %); ${unchecked} answers with an undocumented status not checked.`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};
