import type { RunningService } from '@lingua/bootstrap';
import { createGrpcClient, devCallSigner } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { makeEvent } from '@lingua/contracts';
import { type TestClock, waitFor } from '@lingua/testing';
import { achievementUnlockModel } from '../src/data-access/achievement.model';
import { cardModel } from '../src/data-access/card.model';
import { learningProfileModel } from '../src/data-access/learning-profile.model';
import { reviewModel } from '../src/data-access/review.model';
import { sessionModel } from '../src/data-access/session.model';
import { setModel } from '../src/data-access/set.model';
import { studyTestModel } from '../src/data-access/study-test.model';
import { userDeletedSubscriber } from '../src/entry-points/events/user-deleted.subscriber';
import { flashcardsDeps } from '../src/start';
import { DAY, newUserClient, publish, sampleCard, startFlashcards, stopFlashcards } from './support';

let service: RunningService;
let clock: TestClock;

beforeAll(async () => {
  ({ service, clock } = await startFlashcards());
});
afterAll(() => stopFlashcards(service));

/** A user with something in every collection: a Group B card, a set with a card, a review, a session, a study test. */
async function busyUser() {
  const user = newUserClient(service, clock);
  const b = (await user.api('POST', '/api/flashcards', sampleCard('bee'))).body.data.id;
  const setId = (await user.api('POST', '/api/flashcard-sets', { name: 'S' })).body.data.set.id;
  const c = (await user.api('POST', '/api/flashcards', { setId, word: 'sea', translation: 'See' })).body.data
    .card.id;
  await user.api('POST', '/api/learning/review', { cardId: c, rating: 4 });
  await user.api('POST', '/api/learning/session/start', { mode: 'review' });
  expect(
    (
      await user.api('POST', '/api/study/record-test', {
        flashcardId: b,
        testType: 'typing',
        isCorrect: true,
      })
    ).status,
  ).toBe(201);
  return user;
}

async function holdings(userId: string) {
  const c = service.deps.mongo.connection;
  return {
    cards: await cardModel(c).countDocuments({ userId }),
    sets: await setModel(c).countDocuments({ userId }),
    reviews: await reviewModel(c).countDocuments({ userId }),
    sessions: await sessionModel(c).countDocuments({ userId }),
    studyTests: await studyTestModel(c).countDocuments({ userId }),
    profiles: await learningProfileModel(c).countDocuments({ _id: userId }),
  };
}

describe('user.deleted', () => {
  it("When a user.deleted event arrives, Then all of that user's data is erased and other users keep theirs", async () => {
    const gone = await busyUser();
    const kept = await busyUser();
    expect(await holdings(gone.sub)).toEqual({
      cards: 2,
      sets: 1,
      reviews: 1,
      sessions: 1,
      studyTests: 1,
      profiles: 1,
    });

    await publish(service, 'user.deleted', { userId: gone.sub });

    await waitFor(async () =>
      expect(await holdings(gone.sub)).toEqual({
        cards: 0,
        sets: 0,
        reviews: 0,
        sessions: 0,
        studyTests: 0,
        profiles: 0,
      }),
    );
    expect(await holdings(kept.sub)).toEqual({
      cards: 2,
      sets: 1,
      reviews: 1,
      sessions: 1,
      studyTests: 1,
      profiles: 1,
    });
    // the same event again (a redelivery) is harmless
    await publish(service, 'user.deleted', { userId: gone.sub });
    expect((await gone.api('GET', '/api/flashcards')).body.data.count).toBe(0);
  });
});

describe('user.deleted without the HTTP routes', () => {
  it("When the consumer gets dependencies no route registration has seen, Then the user's achievements are erased with the rest", async () => {
    const user = newUserClient(service, clock);
    const id = (await user.api('POST', '/api/flashcards', sampleCard('ant'))).body.data.id;
    expect((await user.api('POST', `/api/flashcards/${id}/review`, { confidence: 2 })).status).toBe(200);
    const unlocks = () =>
      achievementUnlockModel(service.deps.mongo.connection).countDocuments({ userId: user.sub });
    await waitFor(async () => expect(await unlocks()).toBeGreaterThan(0));

    // wired as start.ts wires it, and never handed to registerHttpRoutes
    const consumer = userDeletedSubscriber(flashcardsDeps(service.deps, clock));
    await consumer.handler(makeEvent('user.deleted', { userId: user.sub }), {
      deliveryCount: 1,
      subject: 'events.user.deleted',
    });

    expect(await unlocks()).toBe(0);
    expect((await holdings(user.sub)).cards).toBe(0);
  });
});

describe('gRPC FlashcardsService.GetCardStats', () => {
  it('When another service asks for a user’s card counts, Then total, due, mastered and favourite cards come from the same card model', async () => {
    const user = newUserClient(service, clock);
    const ids: string[] = [];
    for (const w of ['g1', 'g2', 'g3'])
      ids.push((await user.api('POST', '/api/flashcards', sampleCard(w))).body.data.id);
    await user.api('POST', `/api/flashcards/${ids[0]}/favorite`);
    await user.api('POST', `/api/flashcards/${ids[1]}/review`, { confidence: 1 }); // not due for 2 days
    await user.api('DELETE', `/api/flashcards/${ids[2]}`); // archived: never counted
    await cardModel(service.deps.mongo.connection).updateOne({ _id: ids[0] }, { $set: { masteryLevel: 95 } });

    const client = createGrpcClient(
      loadPackage().lingua.flashcards.v1.FlashcardsService,
      service.grpcAddress!,
      {
        signer: devCallSigner('identity'), // the one service that calls GetCardStats
      },
    );
    try {
      const stats = await client.call('GetCardStats', { user_id: user.sub });
      expect(stats).toEqual({
        total_cards: 2,
        due_cards: 1,
        mastered_cards: 1,
        favorite_cards: 1,
        daily_goal: 20,
        timezone: '',
        reminder_enabled: false,
        reminder_time: '19:00',
      });
      clock.advance(3 * DAY);
      expect((await client.call('GetCardStats', { user_id: user.sub })).due_cards).toBe(2);
    } finally {
      client.close();
    }
  });
});
