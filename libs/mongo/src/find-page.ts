import type { mongo } from 'mongoose';

export interface PageOptions {
  sort: mongo.Sort;
  skip: number;
  limit: number;
  projection?: mongo.Document;
}

/** One page of a query and the total it pages through, read together (list endpoints). */
export async function findPage<T extends mongo.Document>(
  col: mongo.Collection<T>,
  query: mongo.Filter<T>,
  page: PageOptions,
): Promise<{ docs: mongo.WithId<T>[]; total: number }> {
  const [docs, total] = await Promise.all([
    col
      .find(query, page.projection ? { projection: page.projection } : {})
      .sort(page.sort)
      .skip(page.skip)
      .limit(page.limit)
      .toArray(),
    col.countDocuments(query),
  ]);
  return { docs, total };
}
