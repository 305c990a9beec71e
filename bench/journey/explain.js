// The database's own plan for each query shape the mix issued (captured by capture.js): explain
// through the MongoDB API (FerretDB 2 answers with PostgreSQL's plan of the DocumentDB query), and a
// verdict on whether an index serves it. Writes (update, delete, findAndModify) and counts are
// explained as the find of the same filter and sort, which is the part that reads.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { BSON, MongoClient } = require('mongodb');

const PSQL = `/usr/lib/postgresql/${process.env.LINGUA_PG_MAJOR ?? 15}/bin/psql`;

/**
 * PostgreSQL's EXPLAIN ANALYZE of the DocumentDB query FerretDB runs for `q` (documentdb_api_catalog's
 * bson_aggregation_find / _pipeline, the functions FerretDB calls), through psql to the local cluster:
 * the rows each scan really read, which the MongoDB API's explain (planner estimates) does not give.
 * Resolves { rowsRead, ms } or { error }; undefined when psql is not there.
 */
function analyze(q, pgPort) {
  if (!fs.existsSync(PSQL)) return undefined;
  const cmd = explainCommand(q);
  const fn = cmd.aggregate ? 'bson_aggregation_pipeline' : 'bson_aggregation_find';
  const spec = BSON.EJSON.stringify(cmd, { relaxed: true }).replaceAll("'", "''");
  const sql = `EXPLAIN (ANALYZE, FORMAT JSON) SELECT document FROM documentdb_api_catalog.${fn}('${q.db}', '${spec}'::documentdb_core.bson)`;
  const r = spawnSync(
    PSQL,
    ['-X', '-At', '-h', '127.0.0.1', '-p', String(pgPort), '-U', 'lingua', '-d', 'lingua', '-c', sql],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) return { error: (r.stderr || r.stdout).trim().split('\n')[0] };
  const [plan] = JSON.parse(r.stdout);
  const scans = [...planNodes(plan.Plan)].filter((n) =>
    /^(Seq|Index|Index Only|Bitmap Heap|Tid) Scan$/.test(n['Node Type']),
  );
  return {
    rowsRead: scans.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1), 0),
    ms: plan['Execution Time'],
  };
}

/** The explain command of a captured query. */
function explainCommand(q) {
  if (q.op === 'aggregate') return { aggregate: q.collection, pipeline: q.pipeline, cursor: {} };
  const find = { find: q.collection, filter: q.filter ?? {} };
  if (q.sort) find.sort = q.sort;
  if (q.op === 'find' && q.limit) find.limit = q.limit;
  return find;
}

/** Every node of a PostgreSQL JSON plan, depth first. */
function* planNodes(node) {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) yield* planNodes(n);
    return;
  }
  if (typeof node['Node Type'] === 'string') yield node;
  for (const [k, v] of Object.entries(node))
    if (k === 'Plans' || k === 'Plan' || typeof v === 'object') yield* planNodes(v);
}

/**
 * The plan's scans: [{ type, relation, index }] and whether every scan of a collection uses an index.
 * A plan with no PostgreSQL nodes (another engine) is judged by MongoDB's stage names instead.
 */
function judge(explained) {
  const nodes = [...planNodes(explained)].filter((n) => /Scan/.test(n['Node Type']));
  if (nodes.length > 0) {
    const scans = nodes.map((n) => ({
      type: n['Node Type'],
      index: n['Index Name'],
      relation: n['Relation Name'],
    }));
    // the scans that read a table; a Subquery, Function, CTE or Values scan reads what another node gave it
    const reads = scans.filter((s) =>
      /^(Seq|Index|Index Only|Bitmap Heap|Bitmap Index|Tid|Sample) Scan$/.test(s.type),
    );
    return {
      scans: reads,
      indexed: reads.length > 0 && reads.every((s) => s.type !== 'Seq Scan' && s.type !== 'Sample Scan'),
    };
  }
  const text = JSON.stringify(explained);
  if (/COLLSCAN/.test(text)) return { scans: [{ type: 'COLLSCAN' }], indexed: false };
  if (/IXSCAN|IDHACK|EXPRESS/.test(text)) return { scans: [{ type: 'IXSCAN' }], indexed: true };
  return { scans: [], indexed: undefined };
}

/** Explains each captured shape; resolves [{ db, collection, op, filter, sort, count, scans, indexed, analyzed, error }]. */
async function explainAll(url, shapes, pgPort) {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const out = [];
  try {
    for (const { count, sample } of shapes.values()) {
      const row = { ...sample, count };
      try {
        const explained = await client
          .db(sample.db)
          .command({ explain: explainCommand(sample), verbosity: 'queryPlanner' });
        Object.assign(row, judge(explained), { plan: explained, analyzed: analyze(sample, pgPort) });
      } catch (err) {
        row.error = err.message;
      }
      out.push(row);
    }
  } finally {
    await client.close();
  }
  return out;
}

module.exports = { explainAll, explainCommand, judge, planNodes };
