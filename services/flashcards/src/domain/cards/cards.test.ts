import { contentUpdate, newCard, synonymsFromText } from './card-fields';
import { difficultyOfLevel } from './cefr';
import { dueWindow, reviewStatus } from './review-status';

const now = new Date('2026-05-10T15:00:00Z');

describe('review status', () => {
  it('When due dates fall on earlier, the same or later UTC days, Then overdue by N days, due today, or due in N days', () => {
    expect(reviewStatus(new Date('2026-05-07T23:59:00Z'), now)).toMatchObject({
      status: 'overdue',
      overdueDays: 3,
      label: 'Overdue by 3 days',
    });
    expect(reviewStatus(new Date('2026-05-09T23:59:00Z'), now)).toMatchObject({
      status: 'overdue',
      overdueDays: 1,
      label: 'Overdue by 1 day',
    });
    expect(reviewStatus(new Date('2026-05-10T00:00:00Z'), now)).toMatchObject({
      status: 'due_today',
      isDueToday: true,
    });
    expect(reviewStatus(new Date('2026-05-10T23:00:00Z'), now)).toMatchObject({ status: 'due_today' });
    expect(reviewStatus(new Date('2026-05-12T01:00:00Z'), now)).toMatchObject({
      status: 'upcoming',
      daysUntilDue: 2,
    });
  });

  it('When includeToday / includeOverdue are combined, Then the window covers today, the past, both or nothing', () => {
    const endOfToday = new Date('2026-05-10T23:59:59.999Z');
    expect(dueWindow(now, { includeToday: true, includeOverdue: true })).toEqual({ to: endOfToday });
    expect(dueWindow(now, { includeToday: true, includeOverdue: false })).toEqual({
      from: new Date('2026-05-10T00:00:00Z'),
      to: endOfToday,
    });
    expect(dueWindow(now, { includeToday: false, includeOverdue: true })).toEqual({
      to: new Date('2026-05-09T23:59:59.999Z'),
    });
    expect(dueWindow(now, { includeToday: false, includeOverdue: false })).toBeNull();
  });
});

describe('card fields', () => {
  it('When a card is made, Then it is due at once with the spec defaults and synonyms as JSON text', () => {
    const c = newCard(
      { word: 'w', translation: 't', synonyms: ['a'], difficultyLevel: 'B2' },
      { id: 'i', userId: 'u', setId: null },
      now,
    );
    expect(c).toMatchObject({
      nextReviewDate: now,
      easinessFactor: 2.5,
      repetitions: 0,
      intervalDays: 1,
      synonyms: '["a"]',
      difficulty: 'intermediate',
      isArchived: false,
    });
  });
  it('When a word or example changes, Then the stored blank text is cleared', () => {
    expect(contentUpdate({ word: 'x' })).toEqual({ word: 'x', filledQuestionText: null });
    expect(contentUpdate({ translation: 'y' })).toEqual({ translation: 'y' });
  });
  it('When stored synonyms are not a JSON array of strings, Then [] or only the strings', () => {
    expect(synonymsFromText('oops')).toEqual([]);
    expect(synonymsFromText('[1,"a"]')).toEqual(['a']);
    expect(difficultyOfLevel('C1')).toBe('advanced');
  });
});
