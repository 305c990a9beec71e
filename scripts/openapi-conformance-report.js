#!/usr/bin/env node
// Adds up the files test/openapi-recorder.setup.ts wrote (OPENAPI_CONFORMANCE=<dir> npx jest …):
// the operations with a validated answer, and the answers that did not match the document.
// With a document (second argument), also the coverage through the gateway, operation by
// operation: which ones a test drove to a documented success answer the way their real caller
// does (through the gateway), and which ones no answer validated.
const { summarize } = require('./openapi-conformance');

const [dir, documentFile] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/openapi-conformance-report.js <dir> [openapi.json]');
  process.exit(2);
}
const { validated, throughGateway, failures, unchecked, operations, missing, notThroughGateway } = summarize(
  dir,
  documentFile,
);
console.log(`operations with an answer that matched the document: ${validated.size}`);
console.log(`answers with no documented status (not checked): ${unchecked}`);
console.log(`answers that do not match the document: ${failures.length}`);
for (const f of failures)
  console.log(`  ${f.file}: ${f.method} ${f.path} ${f.status} ${JSON.stringify(f.errors).slice(0, 300)}`);
if (operations) {
  console.log(
    `\ncoverage through the gateway, per operation (✓: a documented 2xx answer through a gateway):`,
  );
  for (const op of operations) console.log(`  ${throughGateway.has(op) ? '✓' : '✗'} ${op}`);
  const pct = ((100 * (operations.length - notThroughGateway.length)) / operations.length).toFixed(1);
  console.log(
    `through the gateway: ${operations.length - notThroughGateway.length} of ${operations.length} (${pct} %)`,
  );
  console.log(
    `operations of the document: ${operations.length}; without a validated answer: ${missing.length}`,
  );
  for (const op of missing) console.log(`  ${op}`);
}
process.exit(failures.length || missing?.length || notThroughGateway?.length ? 1 : 0);
