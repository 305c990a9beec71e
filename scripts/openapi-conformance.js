// Adds up the files test/openapi-recorder.setup.ts wrote (one per test file): the operations with
// an answer that matched its document, the answers that did not match, the operations that got a
// documented success answer through a gateway, and, given the public document, the operations
// that no answer validated or that no test drove to success through the gateway. Used by the whole
// suite's global teardown (a gate) and by scripts/openapi-conformance-report.js (a report).
const fs = require('node:fs');
const path = require('node:path');

function summarize(dir, documentFile) {
  const validated = new Set();
  const throughGateway = new Set();
  const failures = [];
  let unchecked = 0;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const r = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    r.validated.forEach((v) => validated.add(v));
    (r.throughGateway ?? []).forEach((v) => throughGateway.add(v));
    unchecked += r.unchecked;
    for (const f of r.failures) failures.push({ file, ...f });
  }
  let operations;
  let missing;
  let notThroughGateway;
  if (documentFile && fs.existsSync(documentFile)) {
    const doc = JSON.parse(fs.readFileSync(documentFile, 'utf8'));
    operations = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
    );
    missing = operations.filter((op) => !validated.has(op));
    notThroughGateway = operations.filter((op) => !throughGateway.has(op));
  }
  return { validated, throughGateway, failures, unchecked, operations, missing, notThroughGateway };
}

module.exports = { summarize };
