import { isolatedServiceEnv } from '@lingua/testing';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';

// The everyday calls of the app and of those who run it, through the gateway, each as its real
// caller: a learner's Group B cards (one by one and in a batch), settings, AI text help, dialogue
// practice and offers; an admin's subscription list; a partner's webhook list; the orchestrator's
// readiness probe. Each of these was reached before only by the random hostile-input walk.
jest.setTimeout(120_000);

let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4' }));
});
afterAll(() => stopAndDrop(stack));

async function learner() {
  const u = newCredentials('e');
  const res = await call('POST', '/api/v1/auth/register', { body: u });
  expect(res.status).toBe(201);
  return { ...u, id: res.body.data.userId as string, token: res.body.data.accessToken as string };
}

describe('everyday calls through the gateway', () => {
  it('When a learner keeps Group B cards, Then one is read, favourited, asked as a question and deleted, and a batch creates and updates several', async () => {
    const { token } = await learner();
    const created = await call('POST', '/api/flashcards', {
      token,
      body: {
        word: 'window',
        translation: 'Fenster',
        definition: 'an opening in a wall',
        difficultyLevel: 'A1',
      },
    });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;

    const read = await call('GET', `/api/flashcards/${id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id, word: 'window', isFavorite: false });

    const favourite = await call('POST', `/api/flashcards/${id}/favorite`, { token });
    expect(favourite.status).toBe(200);
    expect((await call('GET', `/api/flashcards/${id}`, { token })).body.data.isFavorite).toBe(true);

    const question = await call('POST', `/api/flashcards/${id}/question`, {
      token,
      body: { learnerLevel: 'A1', questionType: 'flashcard' },
    });
    expect(question.status).toBe(200);
    expect(question.body.data.question).toMatchObject({
      questionType: 'flashcard',
      questionText: 'window',
      correctAnswer: 'Fenster',
    });

    const set = await call('POST', '/api/flashcard-sets', { token, body: { name: 'House' } });
    expect(set.status).toBe(201);
    const batch = await call('POST', '/api/flashcards/batch', {
      token,
      body: {
        operation: 'create',
        targetSetId: set.body.data.set.id,
        data: [
          { word: 'door', translation: 'Tür' },
          { word: 'roof', translation: 'Dach' },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data).toMatchObject({ success: 2, failed: 0 });
    const ids = (batch.body.data.cards as { id: string }[]).map((c) => c.id);
    const updated = await call('POST', '/api/flashcards/batch', {
      token,
      body: { operation: 'update', cardIds: ids, data: { partOfSpeech: 'noun' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ success: 2, failed: 0 });
    expect((await call('GET', `/api/flashcards/${ids[0]}`, { token })).body.data.partOfSpeech).toBe('noun');

    const removed = await call('DELETE', `/api/flashcards/${id}`, { token });
    expect(removed.status).toBe(200);
    expect((await call('GET', `/api/flashcards/${id}`, { token })).status).toBe(404);
  });

  it('When a learner changes their settings, Then the app reads them back', async () => {
    const { token } = await learner();
    const learning = await call('PUT', '/api/learning/settings', { token, body: { dailyGoal: 15 } });
    expect(learning.status).toBe(200);
    const readBack = await call('GET', '/api/learning/settings', { token });
    expect(readBack.status).toBe(200);
    expect(readBack.body.data).toMatchObject({ dailyGoal: 15 });

    const user = await call('PUT', '/api/users/settings', {
      token,
      body: { reminderEnabled: true, reminderTime: '19:30', theme: 'dark' },
    });
    expect(user.status).toBe(200);
    const profile = await call('GET', '/api/users/profile', { token });
    expect(JSON.stringify(profile.body.data)).toContain('19:30');
  });

  it('When a learner asks the AI about a text and for cards on a theme, and practises a dialogue, Then each answers and the offers are listed', async () => {
    const { token } = await learner();
    const analysed = await call('POST', '/api/ai/analyze-text', {
      token,
      body: { text: 'The children were playing in the garden while their parents cooked dinner.' },
    });
    expect(analysed.status).toBe(200);
    expect(analysed.body.data).toEqual(expect.any(Object));

    const generated = await call('POST', '/api/ai/generate', {
      token,
      body: { mode: 'theme', input: 'kitchen', count: 5 },
    });
    expect(generated.status).toBe(200);
    expect(generated.body.data.cards.length).toBeGreaterThan(0);

    const practice = await call('POST', '/api/v1/dialogues/practice', { token, body: {} });
    expect(practice.status).toBe(201);

    const offers = await call('GET', '/api/v1/subscriptions/offers', { token });
    expect(offers.status).toBe(200);
    expect(offers.body.data.active_offers).toEqual(expect.any(Array));
  });

  it('When an admin lists a user’s subscriptions and a partner lists its webhooks, Then both answer; the readiness probe answers too', async () => {
    const u = await learner();
    const users = stack.services.identity.deps.mongo.connection.collection('users');
    await users.updateOne({ _id: u.id as never }, { $set: { role: 'admin' } });
    const login = await call('POST', '/api/v1/auth/login', {
      body: { email: u.email, password: u.password },
    });
    expect(login.body.data.userRole).toBe('admin');
    const adminToken = login.body.data.accessToken as string;
    const list = await call('GET', `/api/v1/admin/subscriptions?user_id=${u.id}`, { token: adminToken });
    expect(list.status).toBe(200);

    const hooks = await call('GET', '/api/webhooks', { token: u.token });
    expect(hooks.status).toBe(200);
    expect(hooks.body.data).toMatchObject({ webhooks: [] });

    const ready = await call('GET', '/health/ready');
    expect(ready.status).toBe(200);
  });
});
