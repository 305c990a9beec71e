import { waitFor } from '@lingua/testing';
import { type BehindGateway, startBehindGateway } from './gateway-support';
import { sampleCard } from './support';

// Issue 36, item 4: a review is several writes (the card, the review log, the study day). A client
// that retries after a lost answer must not review twice, and a crash between the card's write and
// the others must not lose the review for stats, streak and achievements.

let stack: BehindGateway;
/** Armed by a test: the next review stops right after the card's write, as a crash there would. */
let crashAfterCardWrite = false;
/** Armed by a test: the next session end stops right after the session's write. */
let crashAfterSessionEnd = false;
const faults = {
  afterCardWrite() {
    if (!crashAfterCardWrite) return;
    crashAfterCardWrite = false;
    throw new Error('simulated crash after the card write');
  },
  afterSessionEnd() {
    if (!crashAfterSessionEnd) return;
    crashAfterSessionEnd = false;
    throw new Error('simulated crash after the session end');
  },
};

beforeAll(async () => {
  stack = await startBehindGateway({}, { faults });
});
afterAll(() => stack?.stop());

type User = ReturnType<BehindGateway['user']>;

async function newGroupBCard(user: User, word: string) {
  const res = await user.api('POST', '/api/flashcards', sampleCard(word));
  expect(res.status).toBe(200);
  return res.body.data as { id: string; timesReviewed: number };
}

async function statsOf(user: User) {
  const res = await user.api('GET', '/api/learning/stats?period=all');
  expect(res.status).toBe(200);
  return res.body.data as { reviews: number; cardsLearned: number; streak: number };
}

const cardOf = async (user: User, id: string) => (await user.api('GET', `/api/flashcards/${id}`)).body.data;

describe('a review through the gateway is idempotent and survives a crash between its writes', () => {
  it('When the app sends the same Group B review twice (the first answer was lost), Then it is counted once, the card is scheduled once and both answers agree', async () => {
    const user = stack.user();
    const card = await newGroupBCard(user, 'retry');
    expect(card.timesReviewed).toBe(0);
    const review = { confidence: 2, timesReviewed: 0 };

    const first = await user.api('POST', `/api/flashcards/${card.id}/review`, review);
    const retry = await user.api('POST', `/api/flashcards/${card.id}/review`, review);

    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body.data).toEqual(first.body.data);
    expect((await cardOf(user, card.id)).timesReviewed).toBe(1);
    expect(await statsOf(user)).toMatchObject({ reviews: 1, cardsLearned: 1 });

    // the next answer (the state the app now holds) is a new review
    const next = await user.api('POST', `/api/flashcards/${card.id}/review`, {
      confidence: 0,
      timesReviewed: 1,
    });
    expect(next.status).toBe(200);
    expect(next.body.data.wasCorrect).toBe(false);
    expect((await statsOf(user)).reviews).toBe(2);
  });

  it('When the app sends the same Group C review twice at the same moment, Then one review is counted and both answers carry its result', async () => {
    const user = stack.user();
    const card = await newGroupBCard(user, 'twice');
    const review = { cardId: card.id, rating: 4, timesReviewed: 0 };

    const [a, b] = await Promise.all([
      user.api('POST', '/api/learning/review', review),
      user.api('POST', '/api/learning/review', review),
    ]);

    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.data.nextReviewDate).toBe(b.body.data.nextReviewDate);
    expect((await cardOf(user, card.id)).timesReviewed).toBe(1);
    expect((await statsOf(user)).reviews).toBe(1);
  });

  it('When the app names a review count the card never had, Then it is told 409 and nothing changes', async () => {
    const user = stack.user();
    const card = await newGroupBCard(user, 'ahead');
    const res = await user.api('POST', `/api/flashcards/${card.id}/review`, {
      confidence: 1,
      timesReviewed: 3,
    });
    expect(res.status).toBe(409);
    expect((await cardOf(user, card.id)).timesReviewed).toBe(0);
  });

  it('When the process dies right after the card write of a review, Then after a restart the review log, stats and streak count that review', async () => {
    const user = stack.user();
    const card = await newGroupBCard(user, 'crash');

    crashAfterCardWrite = true;
    const crashed = await user.api('POST', `/api/flashcards/${card.id}/review`, { confidence: 2 });
    expect(crashed.status).toBe(500);
    // the card was rescheduled; nothing after its write ran
    expect((await cardOf(user, card.id)).timesReviewed).toBe(1);

    await stack.restart({ faults });

    await waitFor(
      async () => expect(await statsOf(user)).toMatchObject({ reviews: 1, cardsLearned: 1, streak: 1 }),
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    // and the achievement the first learned card earns
    await waitFor(
      async () => {
        const res = await user.api('GET', '/api/achievements');
        expect((res.body.data.unlocked as { id: string }[]).map((a) => a.id)).toContain('cards_learned_1');
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
  }, 60_000);

  it('When the process dies between a session end and its XP, Then the app ending it again gets the same result and the XP once', async () => {
    const user = stack.user();
    const card = await newGroupBCard(user, 'session');
    const started = await user.api('POST', '/api/learning/session/start', { mode: 'learn' });
    expect(started.status).toBe(201);
    const sessionId = started.body.data.sessionId as string;
    expect(
      (await user.api('POST', '/api/learning/review', { cardId: card.id, rating: 5, sessionId })).status,
    ).toBe(200);

    crashAfterSessionEnd = true;
    expect((await user.api('POST', '/api/learning/session/end', { sessionId })).status).toBe(500);
    const again = await user.api('POST', '/api/learning/session/end', { sessionId });
    const twice = await user.api('POST', '/api/learning/session/end', { sessionId });
    expect(again.status).toBe(200);
    expect(twice.body.data).toEqual(again.body.data);
    const xp = again.body.data.xpEarned as number;
    expect(xp).toBeGreaterThan(0);

    // the study XP shows in the total a claim answers (the first learned card's achievement: 10 XP)
    const claim = await user.api('POST', '/api/achievements/cards_learned_1/claim');
    expect(claim.status).toBe(200);
    expect(claim.body.data.totalXp).toBe(xp + 10);
  });
});
