import type { Query, Schema } from 'mongoose';
import { remainingMs, throwIfAbandoned } from '@lingua/logger';

const QUERIES = [
  'find',
  'findOne',
  'countDocuments',
  'estimatedDocumentCount',
  'distinct',
  'findOneAndUpdate',
  'findOneAndDelete',
  'findOneAndReplace',
  'updateOne',
  'updateMany',
  'deleteOne',
  'deleteMany',
  'replaceOne',
] as const;

/** What is left of the current request's deadline, as a server time limit; undefined when it has none. */
function serverTimeLimit(): number | undefined {
  throwIfAbandoned(); // the caller is gone or the answer is out: do not start the operation
  const left = remainingMs();
  // at least 1 ms: 0 would mean "no limit" to the server
  return left === undefined ? undefined : Math.max(1, Math.floor(left));
}

/**
 * Every query and aggregation of a model on this connection carries the current request's remaining
 * time as `maxTimeMS`, so the database stops work whose caller has stopped waiting (MongoDB answers
 * code 50; FerretDB 2 cancels the PostgreSQL statement). Saves are not started once abandoned.
 */
export function deadlinePlugin(schema: Schema): void {
  schema.pre([...QUERIES], { document: false, query: true }, function (this: Query<unknown, unknown>) {
    const limit = serverTimeLimit();
    if (limit !== undefined && this.getOptions().maxTimeMS === undefined) this.maxTimeMS(limit);
  });
  schema.pre('aggregate', function () {
    const limit = serverTimeLimit();
    if (limit !== undefined && this.options.maxTimeMS === undefined) this.option({ maxTimeMS: limit });
  });
  schema.pre('save', () => void throwIfAbandoned());
  schema.pre('insertMany', () => void throwIfAbandoned());
}
