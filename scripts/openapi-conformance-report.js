#!/usr/bin/env node
// Adds up the files test/openapi-recorder.setup.ts wrote (OPENAPI_CONFORMANCE=<dir> npx jest …):
// the operations with a validated answer, and the answers that did not match the document.
// With a document (second argument), also the operations no test exercised.
const { summarize } = require('./openapi-conformance');

const [dir, documentFile] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/openapi-conformance-report.js <dir> [openapi.json]');
  process.exit(2);
}
const { validated, failures, unchecked, operations, missing } = summarize(dir, documentFile);
console.log(`operations with an answer that matched the document: ${validated.size}`);
console.log(`answers with no documented status (not checked): ${unchecked}`);
console.log(`answers that do not match the document: ${failures.length}`);
for (const f of failures)
  console.log(`  ${f.file}: ${f.method} ${f.path} ${f.status} ${JSON.stringify(f.errors).slice(0, 300)}`);
if (operations) {
  console.log(
    `operations of the document: ${operations.length}; without a validated answer: ${missing.length}`,
  );
  for (const op of missing) console.log(`  ${op}`);
}
process.exit(failures.length || missing?.length ? 1 : 0);
