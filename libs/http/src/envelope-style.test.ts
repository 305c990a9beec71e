import { envelopeStyleFor } from './envelope-style';

describe('envelopeStyleFor', () => {
  it.each([
    ['/health', 'plain'],
    ['/api/health/detailed', 'plain'],
    ['/api/v1/auth/login', 'auth'],
    ['/api/v1/subscriptions/plans', 'shared'],
    ['/api/v1/status', 'shared'],
    ['/api/v2/anything', 'shared'],
    ['/api/flashcards', 'flashcards'],
    ['/api/flashcards/due', 'flashcards'],
    ['/api/flashcards/batch', 'catalogue'],
    ['/api/study/record-test', 'flashcards'],
    ['/api/flashcard-sets', 'catalogue'],
    ['/api/auth/login', 'catalogue'],
  ])('When the path is %s, Then the family is %s', (path, style) => {
    expect(envelopeStyleFor(path)).toBe(style);
  });
});
