import { contentUpdate, newCard, synonymsFromText } from './card-fields';
import { difficultyOfLevel } from './cefr';
import { daysBetween, utcDay } from '../learning/streak';
import { dueWindow, reviewStatus, utcDayDiff } from './review-status';

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

  it('When day differences are counted in whole ms days, Then they equal the UTC calendar-date difference', () => {
    const instants = [
      '1969-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00Z',
      '2024-02-29T12:00:00Z',
      '2026-05-09T23:59:59.999Z',
      '2026-05-10T00:00:00Z',
      '2026-12-31T23:59:59.999Z',
      '2027-01-01T00:00:00.001Z',
    ].map((t) => new Date(t));
    for (let i = 0; i < 200; i++)
      instants.push(new Date(Date.UTC(2020, 0, 1) + Math.floor(Math.random() * 4e11)));
    for (const a of instants)
      for (const b of instants) expect(utcDayDiff(a, b)).toBe(daysBetween(utcDay(a), utcDay(b)));
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
