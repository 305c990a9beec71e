#!/usr/bin/env node
// Adds up the files test/openapi-recorder.setup.ts wrote (OPENAPI_CONFORMANCE=<dir> npx jest …):
// the operations with a validated answer, and the answers that did not match the document.
// With a document (second argument), also the operations no test exercised.
const fs = require('node:fs');
const path = require('node:path');

const [dir, documentFile] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/openapi-conformance-report.js <dir> [openapi.json]');
  process.exit(2);
}
const validated = new Set();
const failures = [];
let unchecked = 0;
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const r = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  r.validated.forEach((v) => validated.add(v));
  unchecked += r.unchecked;
  for (const f of r.failures) failures.push({ file, ...f });
}
console.log(`operations with an answer that matched the document: ${validated.size}`);
console.log(`answers with no documented status (not checked): ${unchecked}`);
console.log(`answers that do not match the document: ${failures.length}`);
for (const f of failures)
  console.log(`  ${f.file}: ${f.method} ${f.path} ${f.status} ${JSON.stringify(f.errors).slice(0, 300)}`);
if (documentFile) {
  const doc = JSON.parse(fs.readFileSync(documentFile, 'utf8'));
  const all = Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
  );
  const missing = all.filter((op) => !validated.has(op));
  console.log(`operations of the document: ${all.length}; without a validated answer: ${missing.length}`);
  for (const op of missing) console.log(`  ${op}`);
}
process.exit(failures.length ? 1 : 0);
