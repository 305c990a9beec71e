// Each test file runs in this environment: after the file's own afterAll hooks (servers stopped),
// it removes every stream, database and Redis key labelled with a name the file made (uniqueName).
const { TestEnvironment } = require('jest-environment-node');
const { removeResources } = require('./test-resources');

class LinguaTestEnvironment extends TestEnvironment {
  async teardown() {
    const names = this.global.__linguaTestNames ?? [];
    try {
      await removeResources(names);
    } finally {
      await super.teardown();
    }
  }
}

module.exports = LinguaTestEnvironment;
