import { TestClock, isolatedServiceEnv } from '@lingua/testing';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';

/**
 * What the user's-day tests share (issue 37 item 0): a stack whose flashcards calendar runs on a
 * test clock (set to instants before the real now: the gateway's assertions are checked against it
 * only for expiry), a learner with a set of cards, reviews and stats through the gateway. Registers
 * its own beforeAll/afterAll.
 */
export function learningDayStack() {
  const clock = new TestClock('2026-11-27T17:47:00Z');
  const at = (iso: string) => clock.advance(Date.parse(iso) - clock.now().getTime());
  const ref: { stack?: InProcessStack } = {};
  const call = gatewayCaller(() => ref.stack!.gateway.url);

  beforeAll(async () => {
    ref.stack = await startInProcessStack(
      isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4' }),
      {},
      { flashcards: { clock } },
    );
  });
  afterAll(() => stopAndDrop(ref.stack));

  async function learner(cards = 1) {
    const reg = await call('POST', '/api/v1/auth/register', { body: newCredentials('tz') });
    expect(reg.status).toBe(201);
    const token = reg.body.data.accessToken as string;
    const set = await call('POST', '/api/flashcard-sets', { token, body: { name: 'days' } });
    expect(set.status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < cards; i++) {
      const c = await call('POST', '/api/flashcards', {
        token,
        body: { setId: set.body.data.set.id, word: `w${i}`, translation: `t${i}` },
      });
      expect(c.status).toBe(201);
      ids.push(c.body.data.card.id);
    }
    return { token, ids };
  }

  const review = async (token: string, cardId: string, zone?: string) => {
    const r = await call('POST', '/api/learning/review', {
      token,
      body: { cardId, rating: 4, responseTime: 2000 },
      ...(zone && { headers: { 'x-timezone': zone } }),
    });
    expect(r.status).toBe(200);
  };
  /** The stats answer (200 checked, its body shown otherwise). */
  const statsReply = async (token: string, period: string, zone?: string) => {
    const r = await call('GET', `/api/learning/stats?period=${period}`, {
      token,
      ...(zone && { headers: { 'x-timezone': zone } }),
    });
    expect([r.status, r.status === 200 ? '' : JSON.stringify(r.body)]).toEqual([200, '']);
    return r;
  };
  return { clock, at, call, learner, review, statsReply, stack: () => ref.stack! };
}
