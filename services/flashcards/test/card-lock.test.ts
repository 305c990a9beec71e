import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { connectRedis } from '@lingua/redis';
import { redisUrl, type TestClock, uniqueName, waitFor } from '@lingua/testing';
import { cardModel } from '../src/data-access/card.model';
import { documentLock } from '@lingua/events';
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
  const stream = service.deps.bus.streamName;
  const { state } = await jsm.streams.info(stream);
  const ids = new Set<string>();
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    const body = msg?.json<{ id: string; event: string; data: { cardId?: string } }>();
    if (body?.event === 'card.reviewed' && body.data.cardId === cardId) ids.add(body.id);
  }
  return ids;
}

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

describe('documentLock', () => {
  it('When several writers take the lock of one document, Then they run one at a time', async () => {
    const redis = await connectRedis(redisUrl());
    try {
      const withLock = documentLock(redis.client, { prefix: uniqueName('lock_test') });
      let inside = 0;
      let most = 0;
      const order: number[] = [];
      await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          withLock('doc', async () => {
            most = Math.max(most, ++inside);
            await new Promise((r) => setTimeout(r, 10));
            order.push(n);
            inside--;
          }),
        ),
      );
      expect(most).toBe(1);
      expect(order.sort()).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await redis.close();
    }
  });

  it('When Redis is unreachable, Then the write still runs (unlocked) and the outage is reported', async () => {
    const redis = await connectRedis(redisUrl());
    await redis.close(); // every command now fails at once
    const errors: unknown[] = [];
    const withLock = documentLock(redis.client, { prefix: 'x', onRedisError: (err) => errors.push(err) });
    expect(await withLock(randomUUID(), async () => 'written')).toBe('written');
    expect(errors).toHaveLength(1);
  });
});
