import createClient from 'openapi-fetch';
import type { paths } from './lingua-api';

// A user's first session, written the way a mobile developer writes it: against the client that
// openapi-typescript generates from /openapi.json (lingua-api.d.ts) and openapi-fetch. It compiles
// under strict tsc with no casts (test/client/tsconfig.json), so every field read below is typed
// by the document; test/e2e/client-journey.test.ts runs it against the whole stack.

export interface JourneyStep {
  operation: string;
  status: number;
}

export interface JourneyResult {
  steps: JourneyStep[];
  cardId: string;
  setId: string;
  dueCount: number;
  sessionXp: number;
  correctedSentence: string;
  unreadNotifications: number;
  subscriptionActive: boolean;
}

/** Throws with the operation's answer when a step did not succeed. */
function ok<T>(
  operation: string,
  steps: JourneyStep[],
  r: { data?: T; error?: unknown; response: Response },
): T {
  steps.push({ operation, status: r.response.status });
  if (r.data === undefined) throw new Error(`${operation}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

export async function userJourney(
  baseUrl: string,
  who: { email: string; username: string },
  /** The fetch the client uses (a test records the answers through it). */
  fetcher: typeof fetch = fetch,
): Promise<JourneyResult> {
  const steps: JourneyStep[] = [];
  const api = createClient<paths>({ baseUrl, fetch: fetcher });
  const password = 'Secret123';

  ok(
    'auth.v1.register',
    steps,
    await api.POST('/api/v1/auth/register', { body: { email: who.email, password, username: who.username } }),
  );
  const login = ok(
    'auth.v1.login',
    steps,
    await api.POST('/api/v1/auth/login', { body: { email: who.email, password } }),
  );
  const headers = { Authorization: `Bearer ${login.data.accessToken}` };

  const created = ok(
    'flashcards.create',
    steps,
    await api.POST('/api/flashcards', {
      headers,
      body: {
        word: 'desk',
        translation: 'Schreibtisch',
        definition: 'A table for work',
        difficultyLevel: 'A2',
      },
    }),
  );
  // 200 is the new card, or success false with the existing one for a word the user already has;
  // the same operation answers a Group C body (setId) 201 with the card under `card`
  const written = created.success ? created.data : created.existingCard;
  const cardId = 'card' in written ? written.card.id : written.id;

  const reviewed = ok(
    'flashcards.review',
    steps,
    await api.POST('/api/flashcards/{id}/review', {
      headers,
      params: { path: { id: cardId } },
      body: { confidence: 2 },
    }),
  );
  if (!reviewed.data.wasCorrect) throw new Error('a confident review counts as correct');

  const due = ok(
    'flashcards.due',
    steps,
    await api.GET('/api/flashcards/due', {
      headers,
      params: { query: { limit: '50', includeToday: 'true' } },
    }),
  );

  const set = ok(
    'flashcardSets.create',
    steps,
    await api.POST('/api/flashcard-sets', { headers, body: { name: 'Office', tags: ['work'] } }),
  );
  const setId = set.data.set.id;
  ok(
    'flashcards.create (Group C)',
    steps,
    await api.POST('/api/flashcards', { headers, body: { setId, word: 'chair', translation: 'Stuhl' } }),
  );
  const sets = ok('flashcardSets.list', steps, await api.GET('/api/flashcard-sets', { headers }));
  if (!sets.data.sets.some((s) => s.id === setId && s.cardCount === 1))
    throw new Error('the set lists its card');

  const session = ok(
    'learning.session.start',
    steps,
    await api.POST('/api/learning/session/start', { headers, body: { mode: 'learn', setId, limit: 10 } }),
  );
  for (const c of session.data.cards)
    ok(
      'learning.review',
      steps,
      await api.POST('/api/learning/review', {
        headers,
        body: { cardId: c.id, rating: 4, sessionId: session.data.sessionId },
      }),
    );
  const ended = ok(
    'learning.session.end',
    steps,
    await api.POST('/api/learning/session/end', { headers, body: { sessionId: session.data.sessionId } }),
  );

  const analysis = ok(
    'ai.analyzeSentence',
    steps,
    await api.POST('/api/ai/analyze-sentence', {
      headers,
      body: { sentence: 'I has a desk.', language: 'en' },
    }),
  );

  const notifications = ok('notifications.list', steps, await api.GET('/api/notifications', { headers }));

  const status = ok(
    'subscriptions.v1.status',
    steps,
    await api.GET('/api/v1/subscriptions/status', { headers }),
  );

  // more of what a first session reads: both faces of the card list, a partial edit, stats, quotas
  const list = ok('flashcards.list', steps, await api.GET('/api/flashcards', { headers }));
  if (list.data.count !== list.data.cards.length || list.data.pagination.total !== list.data.count)
    throw new Error('the plain list carries both faces');
  const edited = ok(
    'flashcards.update',
    steps,
    await api.PUT('/api/flashcards/{id}', {
      headers,
      params: { path: { id: cardId } },
      body: { translation: 'Pult' },
    }),
  );
  if (edited.data.card.translation !== 'Pult') throw new Error('a partial update changes only what it names');
  ok('flashcards.nextReview', steps, await api.GET('/api/flashcards/next-review', { headers }));
  ok('learning.due', steps, await api.GET('/api/learning/due', { headers, params: { query: { setId } } }));
  ok(
    'learning.stats',
    steps,
    await api.GET('/api/learning/stats', { headers, params: { query: { period: 'week' } } }),
  );
  ok('achievements.list', steps, await api.GET('/api/achievements', { headers }));
  ok('ai.quota', steps, await api.GET('/api/ai/quota', { headers }));
  ok('users.profile', steps, await api.GET('/api/users/profile', { headers }));
  ok('subscriptions.v1.plans', steps, await api.GET('/api/v1/subscriptions/plans', { headers }));
  ok('dialogues.v1.usage', steps, await api.GET('/api/v1/dialogues/usage', { headers }));

  return {
    steps,
    cardId,
    setId,
    dueCount: due.data.count,
    sessionXp: ended.data.xpEarned,
    correctedSentence: analysis.data.corrected,
    unreadNotifications: notifications.data.unreadCount,
    subscriptionActive: status.data.subscription_status.is_active,
  };
}
