// Prints the plain closing line CI reads ("N passed, N failed, N skipped") after jest's own summary.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(
      `\nTests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests + results.numTodoTests} skipped\n`,
    );
    // where a run's time goes: jest's own "Time" leaves out what came before its first test
    process.stdout.write(
      `Wall: ${Math.round(process.uptime())} s since jest started, ${Math.round((Date.now() - results.startTime) / 1000)} s of them running tests (at ${new Date().toISOString()})\n`,
    );
  }
}
module.exports = SummaryReporter;
