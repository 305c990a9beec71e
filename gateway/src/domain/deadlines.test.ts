import { budgetFor } from './deadlines';

const budgets = { readMs: 3000, writeMs: 5000, aiMs: 10_000, transferMs: 12_000 };

describe('budgetFor', () => {
  it.each([
    ['GET', '/api/flashcards/due', undefined, 3000],
    ['HEAD', '/api/notifications', undefined, 3000],
    ['POST', '/api/flashcards', 'application/json', 5000],
    ['DELETE', '/api/flashcards/abc', undefined, 5000],
    ['POST', '/api/ai/analyze-sentence', 'application/json', 10_000],
    ['GET', '/api/ai/quota', undefined, 10_000],
    ['POST', '/api/import/anki', 'application/octet-stream', 12_000],
    ['GET', '/api/export/csv', undefined, 12_000],
    ['PUT', '/api/users/profile', 'multipart/form-data; boundary=x', 12_000],
    ['GET', '/api/aide', undefined, 3000],
  ])('When %s %s (%s), Then the budget is %i ms', (method, path, type, expected) => {
    expect(budgetFor(budgets, method, path, type)).toBe(expected);
  });
});
