import express from 'express';
import { createLogger } from '@lingua/logger';
import { createApp, finishApp, sendSuccess, sendSuccessJson, startHttpServer } from '@lingua/http';
import { Writable } from 'node:stream';
import type { Card } from '../../domain/ports';
import { reviewStatus } from '../../domain/cards/review-status';
import { dueCardJson, flashcardFull, flashcardFullJson } from './card.presenter';

const card = (over: Partial<Card> = {}): Card =>
  ({
    id: '11111111-1111-4111-8111-111111111111',
    userId: 'u',
    setId: null,
    word: 'run "fast" \\ ü',
    wordKey: 'run',
    translation: 'correr',
    definition: 'to move quickly',
    partOfSpeech: 'verb',
    pronunciation: null,
    example: 'She ran.',
    exampleTranslation: null,
    synonyms: '["sprint"]',
    tags: ['t'],
    difficultyLevel: 'B1',
    difficulty: 'intermediate',
    masteryLevel: 40,
    timesReviewed: 3,
    timesCorrect: 2,
    isFavorite: false,
    isArchived: false,
    easinessFactor: 2.5,
    repetitions: 1,
    intervalDays: 2,
    lastReviewedAt: new Date('2026-05-01T10:00:00Z'),
    nextReviewDate: new Date('2026-05-07T23:59:00Z'),
    fsrs: null,
    filledQuestionText: null,
    createdAt: new Date('2026-04-01T00:00:00Z'),
    updatedAt: new Date('2026-04-02T00:00:00Z'),
    ...over,
  }) as Card;

describe('due card JSON', () => {
  const now = new Date('2026-05-10T15:00:00Z');

  it('When a due card is rendered from JSON pieces, Then the text is exactly the object form, frozen (remembered) or not', () => {
    for (const next of [
      '2026-05-07T23:59:00Z',
      '2026-05-10T00:00:00Z',
      '2026-05-12T01:00:00Z',
      '1969-12-30T12:00:00Z',
    ]) {
      const plain = card({ nextReviewDate: new Date(next) });
      const expected = JSON.stringify({
        ...flashcardFull(plain),
        reviewStatus: reviewStatus(plain.nextReviewDate, now),
      });
      expect(dueCardJson(plain, now)).toBe(expected);
      const shared = Object.freeze(card({ nextReviewDate: new Date(next) }));
      expect(dueCardJson(shared, now)).toBe(expected);
      expect(dueCardJson(shared, now)).toBe(expected); // second time from the memo
    }
  });

  it('When a card is not frozen, Then its JSON is never remembered (a changed card renders anew)', () => {
    const c = card();
    const before = flashcardFullJson(c);
    c.masteryLevel = 99;
    expect(flashcardFullJson(c)).not.toBe(before);
    expect(JSON.parse(flashcardFullJson(c)).masteryLevel).toBe(99);
  });
});

describe('sendSuccessJson', () => {
  it('When data is sent as JSON text, Then status, content type, ETag and body match sendSuccess', async () => {
    const silent = createLogger('send-json-test', {
      level: 'silent',
      destination: new Writable({ write: (_c, _e, cb) => cb() }),
    });
    const app = createApp({ logger: silent });
    const data = {
      flashcards: [JSON.parse(dueCardJson(card(), new Date()))],
      count: 1,
      text: 'a "b" \u0000',
    };
    const router = express.Router();
    router.get('/object', (_req, res) => sendSuccess(res, data));
    router.get('/text', (_req, res) => sendSuccessJson(res, JSON.stringify(data)));
    app.use('/api/flashcards', router); // the Group B envelope
    app.use('/api/v1/things', router); // an envelope with meta
    finishApp(app, silent);
    const srv = await startHttpServer(app, { port: 0 });
    try {
      for (const base of ['/api/flashcards', '/api/v1/things']) {
        const headers = { 'x-request-id': 'same-id' };
        const [a, b] = await Promise.all([
          fetch(`${srv.url}${base}/object`, { headers }),
          fetch(`${srv.url}${base}/text`, { headers }),
        ]);
        expect(b.status).toBe(a.status);
        expect(b.headers.get('content-type')).toBe(a.headers.get('content-type'));
        const [ta, tb] = [await a.text(), await b.text()];
        // meta.timestamp may differ by a millisecond; everything else is byte for byte
        const strip = (t: string) => t.replace(/"timestamp":"[^"]*"/, '"timestamp":"T"');
        expect(strip(tb)).toBe(strip(ta));
        if (!ta.includes('"timestamp"')) expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
      }
    } finally {
      await srv.close();
    }
  });
});
