// Seeds a journey data set straight into the services' databases: users (identity) and their cards and
// sets (flashcards), with the document shape of the services' models and then the services' own index
// lists (dist/data-access/indexes.js, built with @lingua/mongo's ensureIndexes, as the services do at
// start). Bulk inserts, so a data set takes minutes. A marker document records a finished seeding; a
// run finding it with the same spec reuses the data, and one finding none (an interrupted seeding)
// drops the databases and starts again.
const crypto = require('node:crypto');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { MongoClient } = require('mongodb');
const { cardCounts } = require('./stats');

const ROOT = path.resolve(__dirname, '../..');
const SERVICES = ['identity', 'flashcards', 'subscriptions', 'ai', 'notifications'];
const PASSWORD = 'Journey-bench-1';
const MARKER = { collection: 'bench_journey_seed', _id: 'seed' };
const BATCH = 5_000;
const PARALLEL = 2;
const DAY = 86_400_000;

const dbNames = (size) =>
  Object.fromEntries(SERVICES.map((s) => [s, `bench_journey_${size.toLowerCase()}_${s}`]));

/** The cards of one user, with every field the card model stores (services/flashcards card.model.ts). */
function* cardsOf(userId, count, setIds, now) {
  for (let i = 0; i < count; i++) {
    const word = `w${i.toString(36)}x${userId.slice(0, 4)}`;
    const created = new Date(now - ((i * 7919) % 365) * DAY);
    const reviews = i % 7;
    // spread over a month back and two ahead: every user has some cards due and many not
    const next = new Date(now + (((i * 104729) % 90) - 30) * DAY);
    yield {
      _id: crypto.randomUUID(),
      userId,
      setId: setIds.length > 0 && i % 2 === 0 ? setIds[i % setIds.length] : null,
      word,
      wordKey: word.toLowerCase(),
      translation: `Übersetzung ${i}`,
      definition: 'a word seeded by the journey bench',
      partOfSpeech: 'noun',
      pronunciation: null,
      example: 'She learns a new word every day.',
      exampleTranslation: null,
      synonyms: '[]',
      tags: i % 3 === 0 ? ['seeded'] : [],
      difficultyLevel: ['A1', 'A2', 'B1', 'B2', 'C1'][i % 5],
      difficulty: null,
      masteryLevel: Math.min(5, reviews),
      timesReviewed: reviews,
      timesCorrect: Math.floor(reviews / 2),
      isFavorite: i % 11 === 0,
      isArchived: i % 13 === 0,
      easinessFactor: 2.5,
      repetitions: reviews,
      intervalDays: 1 + reviews * 2,
      lastReviewedAt: reviews > 0 ? new Date(next.getTime() - (1 + reviews * 2) * DAY) : null,
      nextReviewDate: next,
      fsrs: null,
      filledQuestionText: null,
      createdAt: created,
      updatedAt: created,
    };
  }
}

/** Inserts the documents of an iterator in batches, a few batches at a time. */
async function insertAll(collection, docs) {
  let inserted = 0;
  const inFlight = new Set();
  let batch = [];
  const flush = async () => {
    const b = batch;
    batch = [];
    const p = collection.insertMany(b, { ordered: false }).then(() => (inserted += b.length));
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
    if (inFlight.size >= PARALLEL) await Promise.race(inFlight);
  };
  for (const d of docs) {
    batch.push(d);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  await Promise.all(inFlight);
  return inserted;
}

/**
 * Ensures data set `size` (S or L, spec from stats.SIZES or overridden) in the database at `url`.
 * Resolves with { reused, users, cards, seconds: { insert, indexes } }.
 */
async function ensureSeeded(url, size, spec, log = console.log) {
  const names = dbNames(size);
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const marker = await client
      .db(names.flashcards)
      .collection(MARKER.collection)
      .findOne({ _id: MARKER._id });
    if (marker && JSON.stringify(marker.spec) === JSON.stringify(spec)) {
      return { reused: true, users: marker.users, cards: marker.cards, seconds: marker.seconds };
    }
    log(
      `seeding ${size} (${JSON.stringify(spec)})${marker ? ': the spec changed' : ''}; dropping ${size}'s databases first`,
    );
    for (const name of Object.values(names)) await client.db(name).dropDatabase();

    const bcrypt = require('bcrypt');
    const passwordHash = await bcrypt.hash(PASSWORD, spec.bcryptCost);
    const counts = cardCounts(spec);
    const now = Date.now();
    const started = performance.now();
    const users = counts.map((_, i) => ({
      _id: crypto.randomUUID(),
      email: `journey-${size.toLowerCase()}-${i}@example.com`,
      username: `journey_${size.toLowerCase()}_${i}`,
      usernameKey: `journey_${size.toLowerCase()}_${i}`,
      passwordHash,
      role: 'user',
      subscriptionStatus: 'inactive',
      subscriptionSyncedAt: null,
      emailVerified: true,
      authProvider: 'password',
      profile: {},
      settings: {},
      lastLoginAt: null,
      deletedAt: null,
      deletionReason: null,
      createdAt: new Date(now - 90 * DAY),
      updatedAt: new Date(now - 90 * DAY),
    }));
    await insertAll(client.db(names.identity).collection('users'), users);
    const sets = [];
    const setsOf = users.map((u, i) => {
      const n = counts[i] === 0 ? 0 : Math.min(5, 1 + Math.floor(counts[i] / 200));
      return Array.from({ length: n }, (_, k) => {
        const s = {
          _id: crypto.randomUUID(),
          userId: u._id,
          name: `Set ${k + 1}`,
          description: '',
          color: null,
          tags: [],
          isPublic: false,
          createdAt: new Date(now - (30 + k) * DAY),
          updatedAt: new Date(now - (30 + k) * DAY),
        };
        sets.push(s);
        return s._id;
      });
    });
    await insertAll(client.db(names.flashcards).collection('card_sets'), sets);
    let lastLog = performance.now();
    const cards = await insertAll(
      client.db(names.flashcards).collection('cards'),
      (function* () {
        for (const [i, u] of users.entries()) {
          yield* cardsOf(u._id, counts[i], setsOf[i], now);
          if (performance.now() - lastLog > 15_000) {
            lastLog = performance.now();
            log(
              `  … ${i + 1} of ${users.length} users' cards queued (${((performance.now() - started) / 1000).toFixed(0)} s)`,
            );
          }
        }
      })(),
    );
    const insertS = (performance.now() - started) / 1000;
    const indexStarted = performance.now();
    const { ensureIndexes } = require(path.join(ROOT, 'libs/mongo/dist/indexes.js'));
    for (const service of ['identity', 'flashcards']) {
      const specs = require(path.join(ROOT, `services/${service}/dist/data-access/indexes.js`))[
        `${service}Indexes`
      ];
      const failures = await ensureIndexes(client.db(names[service]), specs);
      if (failures.length > 0)
        throw new Error(
          `indexes of ${service}: ${failures.map((f) => `${f.index}: ${f.error.message}`).join('; ')}`,
        );
    }
    const seconds = { insert: insertS, indexes: (performance.now() - indexStarted) / 1000 };
    const done = { users: users.length, cards, seconds };
    await client
      .db(names.flashcards)
      .collection(MARKER.collection)
      .insertOne({ _id: MARKER._id, spec, ...done, at: new Date() });
    return { reused: false, ...done };
  } finally {
    await client.close();
  }
}

/**
 * `count` users of the data set, picked by a seeded draw (the same each run), with up to `perUser`
 * of their card and set ids, for the mix to act on: [{ id, email, cards, sets }].
 */
async function pickUsers(url, size, count, perUser = 50) {
  const names = dbNames(size);
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const all = await client
      .db(names.identity)
      .collection('users')
      .find({}, { projection: { _id: 1, email: 1 } })
      .sort({ email: 1 })
      .toArray();
    const random = require('./stats').prng(99);
    const chosen = new Map();
    while (chosen.size < Math.min(count, all.length)) {
      const u = all[Math.floor(random() * all.length)];
      chosen.set(u._id, u);
    }
    const out = [];
    for (const u of chosen.values()) {
      const cards = await client
        .db(names.flashcards)
        .collection('cards')
        .find({ userId: u._id, isArchived: false }, { projection: { _id: 1 } })
        .limit(perUser)
        .toArray();
      const sets = await client
        .db(names.flashcards)
        .collection('card_sets')
        .find({ userId: u._id }, { projection: { _id: 1 } })
        .toArray();
      out.push({ id: u._id, email: u.email, cards: cards.map((c) => c._id), sets: sets.map((s) => s._id) });
    }
    return out;
  } finally {
    await client.close();
  }
}

module.exports = { ensureSeeded, pickUsers, dbNames, PASSWORD, SERVICES };
