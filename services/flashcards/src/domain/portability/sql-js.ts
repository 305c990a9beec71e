import initSqlJs, { type SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

/** sql.js compiles its WebAssembly once per process; every package read or written reuses it. */
export function sqlJs(): Promise<SqlJsStatic> {
  loading ??= initSqlJs().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
