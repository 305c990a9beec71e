import { randomBytes } from 'node:crypto';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// The small things an app team files (issue 38 item 7), each as the app meets it through the gateway:
// a history page past the last, a JSON file picked as CSV, the achievement notification's wording,
// an export of nothing, and reactivating a subscription cancelled at once.
jest.setTimeout(120_000);

const BASE = '/api/v1/subscriptions';
let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(
    // the production default: a cached premium status lives 30 s unless an event ends it
    isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4', AI_ENTITLEMENT_CACHE_MS: '30000' }),
  );
});
afterAll(() => stopAndDrop(stack));

async function learner() {
  const res = await call('POST', '/api/v1/auth/register', { body: newCredentials('cd') });
  expect(res.status).toBe(201);
  return res.body.data.accessToken as string;
}

async function buy(token: string) {
  const tx = `tx${randomBytes(8).toString('hex')}`;
  const bought = await call('POST', `${BASE}/verify-receipt`, {
    token,
    body: {
      platform: 'ios',
      receipt_data: `sandbox_valid_${tx}`,
      transaction_id: tx,
      product_id: 'com.lingua.premium.monthly',
    },
  });
  expect(bought.status).toBe(201);
}

describe('client details through the gateway', () => {
  it('When the app asks for a history page past the last, Then it gets 200 and an empty page, as every other list answers', async () => {
    const token = await learner();
    await buy(token);
    const page = await call('GET', `${BASE}/history?page=9&limit=1`, { token });
    expect(page.status).toBe(200);
    expect(page.body.data.subscription_history).toEqual([]);
    expect(page.body.data.pagination).toMatchObject({ current_page: 9, total_pages: 1, total_items: 1 });
  });

  it('When a user picks a JSON file named .csv to import, Then the answer says it is JSON, not that the upload is malformed', async () => {
    const token = await learner();
    const form = new FormData();
    form.append('format', 'csv');
    const json = JSON.stringify({ cards: [{ word: 'tree', translation: 'Baum' }] });
    form.append('file', new Blob([json], { type: 'text/csv' }), 'cards.csv');
    const res = await call('POST', '/api/import/cards', { token, raw: form });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/looks like JSON/);
    expect(res.body.error.message).not.toMatch(/multipart/);
  });

  it('When a first review unlocks an achievement, Then its notification invites to claim the XP instead of saying it was earned', async () => {
    const token = await learner();
    const card = await call('POST', '/api/flashcards', {
      token,
      body: { word: 'cloud', translation: 'Wolke', definition: 'water in the sky' },
    });
    expect(card.status).toBe(200);
    const start = await call('POST', '/api/learning/session/start', { token, body: { mode: 'learn' } });
    expect(start.status).toBe(201);
    const review = await call('POST', '/api/learning/review', {
      token,
      body: {
        cardId: card.body.data.id,
        rating: 5,
        responseTime: 1500,
        mode: 'flip',
        sessionId: start.body.data.sessionId,
      },
    });
    expect(review.status).toBe(200);
    const note = await waitFor(
      async () => {
        const list = await call('GET', '/api/notifications', { token });
        const found = (
          list.body.data.notifications as { type: string; body: string; data: { xp: number } }[]
        ).find((n) => n.type === 'achievement');
        expect(found).toBeDefined();
        return found!;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(note.body).toBe(`Claim your ${note.data.xp} XP on the achievements screen.`);
  });

  it('When a card just scheduled two days out is answered 5 four more times within a second, Then it keeps the interval its due review earned and is not mastered', async () => {
    const token = await learner();
    const card = await call('POST', '/api/flashcards', {
      token,
      body: { word: 'tent', translation: 'Zelt', definition: 'a shelter of cloth' },
    });
    expect(card.status).toBe(200);
    const cardId = card.body.data.id as string;
    const review = () =>
      call('POST', '/api/learning/review', {
        token,
        body: { cardId, rating: 5, responseTime: 900, mode: 'flip' },
      });
    const due = await review(); // new cards are due at once: this one earns 2^1 days
    expect(due.status).toBe(200);
    expect(due.body.data.interval).toBe(2);
    for (let i = 0; i < 4; i++) {
      const early = await review();
      expect(early.status).toBe(200);
      expect(early.body.data).toMatchObject({ interval: 2, nextReviewDate: due.body.data.nextReviewDate });
      expect(early.body.data.masteryLevel).toBe(due.body.data.masteryLevel);
    }
    const read = await call('GET', `/api/flashcards/${cardId}`, { token });
    expect(read.body.data).toMatchObject({ intervalDays: 2 });
  });

  it('When a free user exports an empty collection, Then no daily export slot is spent', async () => {
    const token = await learner();
    const first = await call('GET', '/api/export/cards?format=csv', { token });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-export-remaining')).toBe('5');
    const rain = await call('POST', '/api/flashcards', {
      token,
      body: { word: 'rain', translation: 'Regen', definition: 'water from the sky' },
    });
    expect(rain.status).toBe(200);
    const second = await call('GET', '/api/export/cards?format=csv', { token });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-export-remaining')).toBe('4');
  });

  it('When a free user who just read the AI quota buys premium, Then the quota says premium as soon as the purchase is applied, not after the cache lifetime', async () => {
    const token = await learner();
    const before = await call('GET', '/api/ai/quota', { token });
    expect(before.status).toBe(200);
    expect(before.body.data.isPremium).toBe(false); // now cached, for the whole AI_ENTITLEMENT_CACHE_MS
    await buy(token);
    const bought = Date.now();
    // the subscription.created event ends the cached answer on every replica (before: 30 s)
    await waitFor(
      async () => {
        const quota = await call('GET', '/api/ai/quota', { token });
        expect(quota.body.data).toMatchObject({ isPremium: true, limit: -1 });
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    process.stdout.write(`premium in the AI quota ${Date.now() - bought} ms after the purchase\n`);
  });

  it('When a subscription cancelled at once is reactivated without a new receipt, Then the refusal names the cancellation the status shows', async () => {
    const token = await learner();
    await buy(token);
    const cancelled = await call('POST', `${BASE}/cancel`, {
      token,
      body: { cancellation_reason: 'too_expensive', immediate_cancellation: true },
    });
    expect(cancelled.status).toBe(200);
    const status = await call('GET', `${BASE}/status`, { token });
    expect(status.body.data.subscription_status.status).toBe('cancelled');
    const again = await call('POST', `${BASE}/reactivate`, { token, body: {} });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('SUBSCRIPTION_CANCELLED');
  });
});
