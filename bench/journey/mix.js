// The mobile session mix of the journey bench: what an app's users call, and how often. Each call is
// one request of one user; the user's state (tokens, cards, open learning session) carries between
// calls, so refreshes rotate tokens, reviews go into the session that was started, edits hit the
// user's own cards. `pickCall` turns an intention that the user's state cannot serve (a review with
// no card, ending a session none started, a second refresh while one is in flight) into one it can.
const { performance } = require('node:perf_hooks');

const pick = (random, xs) => xs[Math.floor(random() * xs.length)];
const SENTENCES = [
  'I has a desk',
  'She go to school every day',
  'They was reading the news',
  'We likes the old library',
];
const WORDS = ['house', 'apple', 'library', 'garden', 'station', 'teacher', 'morning', 'friend'];

/** The calls and their weights (share of the mix, in per cent). `login` is excluded from the p95 rules. */
const CALLS = {
  'due list': { weight: 12, request: () => ({ method: 'GET', path: '/api/flashcards/due?limit=20' }) },
  'review card': {
    weight: 12,
    needs: (u) => u.cards.length > 0,
    request: (u, r) => ({
      method: 'POST',
      path: `/api/flashcards/${pick(r, u.cards)}/review`,
      body: { confidence: pick(r, [0, 1, 2]) },
    }),
  },
  'create card': {
    weight: 5,
    request: (u, r, ctx) => ({
      method: 'POST',
      path: '/api/flashcards',
      body: {
        word: ctx.newWord(),
        translation: 'Übersetzung',
        definition: 'a word created by the journey bench',
        difficultyLevel: pick(r, ['A1', 'A2', 'B1']),
      },
    }),
    done: (u, body) => {
      const id = JSON.parse(body)?.data?.id;
      if (!id) return;
      u.cards.push(id);
      u.created.push(id);
    },
  },
  'edit card': {
    weight: 5,
    needs: (u) => u.cards.length > 0,
    request: (u, r) => ({
      method: 'PUT',
      path: `/api/flashcards/${pick(r, u.cards)}`,
      body: { translation: `Übersetzung ${Math.floor(r() * 1000)}` },
    }),
  },
  'card page': { weight: 5, request: () => ({ method: 'GET', path: '/api/flashcards?page=1&limit=20' }) },
  'sets list': { weight: 5, request: () => ({ method: 'GET', path: '/api/flashcard-sets' }) },
  'set detail': {
    weight: 2,
    needs: (u) => u.sets.length > 0,
    request: (u, r) => ({ method: 'GET', path: `/api/flashcard-sets/${pick(r, u.sets)}` }),
  },
  'session start': {
    weight: 3,
    needs: (u) => !u.session,
    request: () => ({
      method: 'POST',
      path: '/api/learning/session/start',
      body: { mode: 'review', limit: 10 },
    }),
    before: (u) => (u.session = { pending: true, cards: [], inFlight: 0 }),
    done: (u, body) => {
      const data = JSON.parse(body)?.data;
      u.session = data?.sessionId
        ? { id: data.sessionId, cards: data.cards.map((c) => c.id), inFlight: 0 }
        : undefined;
    },
    failed: (u) => (u.session = undefined),
  },
  'session review': {
    weight: 6,
    needs: (u) => u.session?.id && u.session.cards.length > 0,
    request: (u, r) => ({
      method: 'POST',
      path: '/api/learning/review',
      body: { cardId: pick(r, u.session.cards), rating: pick(r, [3, 4, 5]), sessionId: u.session.id },
    }),
    before: (u) => {
      u.session.inFlight++;
      return u.session;
    },
    settled: (u, session) => session.inFlight--,
  },
  'session end': {
    weight: 3,
    needs: (u) => u.session?.id && u.session.inFlight === 0,
    request: (u) => ({
      method: 'POST',
      path: '/api/learning/session/end',
      body: { sessionId: u.session.id },
    }),
    // the session is gone for the user at once: no review may follow it into an ended session
    before: (u) => (u.session = undefined),
  },
  'learning due': { weight: 3, request: () => ({ method: 'GET', path: '/api/learning/due?limit=20' }) },
  'stats (week)': { weight: 5, request: () => ({ method: 'GET', path: '/api/learning/stats?period=week' }) },
  notifications: { weight: 6, request: () => ({ method: 'GET', path: '/api/notifications?limit=20' }) },
  profile: { weight: 5, request: () => ({ method: 'GET', path: '/api/users/profile' }) },
  'subscription status': {
    weight: 5,
    request: () => ({ method: 'GET', path: '/api/v1/subscriptions/status' }),
  },
  'check-access': {
    weight: 4,
    request: () => ({ method: 'GET', path: '/api/v1/subscriptions/check-access/dialogue_training' }),
  },
  'word look-up': {
    weight: 3,
    request: (u, r) => ({
      method: 'POST',
      path: '/api/ai/lookup',
      body: { word: pick(r, WORDS), language: 'en' },
    }),
  },
  'analyze sentence': {
    weight: 3,
    // a few hundred sentences per run: new ones miss the 24 h analysis cache, repeats hit it
    request: (u, r, ctx) => ({
      method: 'POST',
      path: '/api/ai/analyze-sentence',
      body: {
        sentence: `${pick(r, SENTENCES)}, says Jny${ctx.run}n${Math.floor(r() * 300)}.`,
        language: 'en',
      },
    }),
  },
  'token refresh': {
    weight: 3,
    needs: (u) => !u.renewing,
    request: (u) => ({ method: 'POST', path: '/api/v1/auth/refresh', auth: `Bearer ${u.refreshToken}` }),
    // one refresh at a time per sign-in: presenting a rotated refresh token revokes the sign-in
    before: (u) => (u.renewing = true),
    done: (u, body) => setTokens(u, JSON.parse(body).data),
    settled: (u) => (u.renewing = false),
  },
  login: {
    weight: 0.25,
    needs: (u) => !u.renewing,
    request: (u, r, ctx) => ({
      method: 'POST',
      path: '/api/v1/auth/login',
      auth: null,
      body: { email: u.email, password: ctx.password },
    }),
    before: (u) => (u.renewing = true),
    done: (u, body) => setTokens(u, JSON.parse(body).data),
    settled: (u) => (u.renewing = false),
  },
};
/** Calls whose latency the p95 rules leave out: a sign-in costs one bcrypt by design. */
const P95_EXEMPT = new Set(['login']);
/** What a call becomes when the user's state cannot serve it. */
const FALLBACK = {
  'review card': 'create card',
  'edit card': 'create card',
  'set detail': 'sets list',
  'session review': 'session start',
  'session end': 'learning due',
  'session start': 'learning due',
  'token refresh': 'due list',
  login: 'due list',
};

function setTokens(u, data) {
  u.accessToken = data.accessToken;
  u.refreshToken = data.refreshToken;
}

/** A call name drawn by weight, then moved to its fallback while the user's state cannot serve it. */
function pickCall(user, random) {
  const names = Object.keys(CALLS);
  const total = names.reduce((s, n) => s + CALLS[n].weight, 0);
  let x = random() * total;
  let name = names.find((n) => (x -= CALLS[n].weight) < 0) ?? names[0];
  for (let i = 0; i < 4 && CALLS[name].needs && !CALLS[name].needs(user); i++) name = FALLBACK[name];
  return name;
}

/**
 * Issues one call of `user` on the undici pool; never rejects. Resolves { name, ms, ok, status }, the
 * latency from the hand-off to the pool (waiting for a free connection counts).
 */
async function issue(pool, user, name, random, ctx) {
  const call = CALLS[name];
  const { method, path, body, auth } = call.request(user, random, ctx);
  const token = call.before?.(user);
  const headers = { 'x-forwarded-for': user.address };
  const authorization = auth === undefined ? `Bearer ${user.accessToken}` : auth;
  if (authorization) headers.authorization = authorization;
  if (body) headers['content-type'] = 'application/json';
  const started = performance.now();
  let status = 0;
  let ok = false;
  try {
    const res = await pool.request({
      method,
      path,
      headers,
      body: body && JSON.stringify(body),
      signal: AbortSignal.timeout(ctx.timeoutMs),
    });
    const text = await res.body.text();
    status = res.statusCode;
    // a Group B create of a word the user already has is a 200 with success false: not what the user wanted
    ok = status >= 200 && status < 300 && !text.startsWith('{"success":false');
    if (ok) call.done?.(user, text);
    else if (ctx.onError) ctx.onError(name, status, text);
  } catch (err) {
    if (ctx.onError) ctx.onError(name, status, err.message);
  }
  const ms = performance.now() - started;
  if (!ok) call.failed?.(user);
  call.settled?.(user, token);
  return { name, ms, ok, status };
}

module.exports = { CALLS, P95_EXEMPT, pickCall, issue, setTokens };
