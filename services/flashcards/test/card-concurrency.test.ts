import type { RunningService } from '@lingua/bootstrap';
import { streamFor } from '@lingua/events';
import { type TestClock, waitFor } from '@lingua/testing';
import { cardModel } from '../src/data-access/card.model';
import { reviewModel } from '../src/data-access/review.model';
import { newUserClient, sampleCard, startFlashcards, stopFlashcards } from './support';

let service: RunningService;
let clock: TestClock;

beforeAll(async () => {
  ({ service, clock } = await startFlashcards());
});
afterAll(() => stopFlashcards(service));

/** Every card.reviewed event of the card that reached the stream (by event id: a redelivery counts once). */
async function reviewedEventsOf(cardId: string): Promise<Set<string>> {
  const { jsm } = service.deps.nats;
  const stream = streamFor(service.deps.bus, 'card.reviewed');
  const { state } = await jsm.streams.info(stream);
  const ids = new Set<string>();
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    const body = msg?.json<{ id: string; event: string; data: { cardId?: string } }>();
    if (body?.event === 'card.reviewed' && body.data.cardId === cardId) ids.add(body.id);
  }
  return ids;
}

// No lock anywhere: each card write is one atomic conditional update on the database (MongoDB 7 or the
// embedded FerretDB 2), see libs/mongo/README.md "Database guarantees we rely on".
describe('Card writes and the outbox relay', () => {
  it('When a card is reviewed many times in a row while the relay publishes, Then no review and no card.reviewed event is lost', async () => {
    const { api } = newUserClient(service, clock);
    const id = (await api('POST', '/api/flashcards', sampleCard('race'))).body.data.id;
    const reviews = 25;
    for (let i = 0; i < reviews; i++) {
      // each review kicks the relay, whose $pull of the previous event meets this review's $push
      const r = await api('POST', `/api/flashcards/${id}/review`, { confidence: i % 3 });
      expect(r.status).toBe(200);
      expect(r.body.data.flashcard.timesReviewed).toBe(i + 1);
    }
    await waitFor(async () => {
      const stored = await cardModel(service.deps.mongo.connection)
        .findById(id)
        .select({ timesReviewed: 1, _outboxPending: 1 })
        .lean<{ timesReviewed: number; _outboxPending: boolean }>();
      expect(stored).toMatchObject({ timesReviewed: reviews, _outboxPending: false });
      expect((await reviewedEventsOf(id)).size).toBe(reviews);
    }, 20_000);
  }, 60_000);
});

describe('Concurrent reviews of one card', () => {
  it('When many reviews of one card arrive at once, Then each one that succeeds applied to the state it read: no review is lost or applied twice to one state', async () => {
    const { api, sub } = newUserClient(service, clock);
    const id = (await api('POST', '/api/flashcards', sampleCard('concurrent'))).body.data.id;
    const sent = 12;
    const replies = await Promise.all(
      Array.from({ length: sent }, (_, i) =>
        api('POST', `/api/flashcards/${id}/review`, { confidence: i % 3 }),
      ),
    );
    // a review either applied (200) or, after its retries all lost the race, was refused (409)
    expect(replies.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const applied = replies.filter((r) => r.status === 200);
    expect(applied.length).toBeGreaterThan(0);
    // each applied review moved the card one step from the state it read: counts 1..n, no repeats
    // (a read-modify-write without the compare-and-set answers the same count to several of them)
    const counts = applied.map((r) => r.body.data.flashcard.timesReviewed as number).sort((a, b) => a - b);
    expect(counts).toEqual(applied.map((_, i) => i + 1));
    const stored = await cardModel(service.deps.mongo.connection)
      .findById(id)
      .lean<{ timesReviewed: number }>();
    expect(stored?.timesReviewed).toBe(applied.length);
    expect(await reviewModel(service.deps.mongo.connection).countDocuments({ cardId: id, userId: sub })).toBe(
      applied.length,
    );
    await waitFor(async () => expect((await reviewedEventsOf(id)).size).toBe(applied.length), 20_000);
  }, 60_000);
});
