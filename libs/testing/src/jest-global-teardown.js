// Runs once after all tests: fails the run when anything this run made is still on the servers.
const { leftoversOf } = require('./test-resources');

module.exports = async function globalTeardown() {
  const run = process.env.LINGUA_TEST_RUN;
  if (!run) return;
  const left = await leftoversOf(run);
  const count = left.streams.length + left.databases.length + left.keys.length;
  if (count > 0)
    throw new Error(
      `The tests left ${count} things behind (run ${run}): ` +
        JSON.stringify({ streams: left.streams, databases: left.databases, keys: left.keys.slice(0, 20) }),
    );
  console.log(`\nTest run ${run}: no streams, databases or Redis keys left behind.`);
};
