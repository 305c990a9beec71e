import type { Response } from 'express';
import type { z } from 'zod';
import { sendSuccess } from '@lingua/http';

/**
 * sendSuccess with `data` checked at compile time against the zod schema that documents the route
 * (`response` of its RouteDoc), so the code and the document cannot drift apart. The schema is not
 * run: the check costs nothing at run time.
 */
export function sendData<S extends z.ZodType>(
  res: Response,
  _schema: S,
  data: z.output<S>,
  options?: Parameters<typeof sendSuccess>[2],
): void {
  sendSuccess(res, data, options);
}
