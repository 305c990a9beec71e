/** How long a request may take, by what it does. Every budget is well under the upstream timeout. */
export interface DeadlineBudgets {
  readMs: number;
  writeMs: number;
  aiMs: number;
  transferMs: number;
}

const TRANSFER_PREFIXES = ['/api/import', '/api/export'];

/**
 * The route class of a request: AI work (model calls), transfers (imports, exports, uploads), other
 * writes, and reads. The budget the gateway forwards is the class's, or less when the client asked for less.
 */
export function budgetFor(
  budgets: DeadlineBudgets,
  method: string | undefined,
  path: string,
  contentType: string | undefined,
): number {
  if (path === '/api/ai' || path.startsWith('/api/ai/')) return budgets.aiMs;
  if (
    TRANSFER_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`)) ||
    contentType?.toLowerCase().startsWith('multipart/')
  )
    return budgets.transferMs;
  return method === 'GET' || method === 'HEAD' ? budgets.readMs : budgets.writeMs;
}
