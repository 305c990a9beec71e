// Least-privilege infrastructure credentials (docs/adr/0019): what each deployable may do on NATS,
// Redis and MongoDB, in one list, and the server configurations made from it. `npm run
// start:cluster` writes its NATS config and Redis ACL from here with passwords of its own; the
// compose and Kubernetes files (deploy/infra-auth/) are rendered from here with the passwords as
// environment variables (`node deploy/local/infra-credentials.js render` rewrites them; a test
// fails when they differ).
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** The token blacklist (libs/auth token-blacklist.ts): identity writes it, everyone else reads. */
const BLACKLIST = {
  keys: ['auth:{blacklist}:*', 'auth:{blacklist}-index'],
  channel: 'auth:blacklist-revoked',
};

/**
 * Per deployable: the events it publishes (subjects `<prefix>.<event>`; `x.>` = every `x.*`), its
 * durable consumers (each may publish only to its own dead-letter subject), its Redis key patterns
 * (read and write), the ones it only reads, its pub/sub channels, and whether it has a database.
 */
const ACCESS = {
  gateway: {
    publishes: [],
    durables: [],
    // rate limits (RATE_LIMIT_PREFIX gateway:rl), API keys (API_KEY_PREFIX gateway:apikey),
    // Idempotency-Key answers (IDEMPOTENCY_PREFIX gateway:idem)
    redisKeys: ['gateway:*'],
    redisReadKeys: BLACKLIST.keys, // the blacklist mirror: the index, and EXISTS while it is not live
    subscribes: [BLACKLIST.channel],
    publishesChannels: [],
    database: false,
    nats: false,
  },
  identity: {
    publishes: ['user.>'],
    durables: ['identity-subscription-changed'],
    // lockouts, login counters, account-mail budget; the blacklist it writes and announces
    redisKeys: ['identity:*', ...BLACKLIST.keys],
    redisReadKeys: [],
    subscribes: [],
    publishesChannels: [BLACKLIST.channel],
    database: true,
    nats: true,
  },
  flashcards: {
    publishes: ['card.reviewed', 'achievement.unlocked', 'reminder.triggered'],
    durables: ['flashcards-user-deleted', 'flashcards-card-reviewed'],
    // the due read model, export quotas
    redisKeys: ['flashcards:*'],
    redisReadKeys: BLACKLIST.keys,
    subscribes: [BLACKLIST.channel],
    publishesChannels: [],
    database: true,
    nats: true,
  },
  subscriptions: {
    publishes: ['subscription.>'],
    durables: ['subscriptions-user-deleted'],
    redisKeys: ['subscriptions:*'], // free-tier dialogue counters
    redisReadKeys: BLACKLIST.keys,
    subscribes: [],
    publishesChannels: [],
    database: true,
    nats: true,
  },
  ai: {
    publishes: [],
    durables: ['ai-user-deleted', 'ai-subscription-changed'],
    redisKeys: ['ai:*'], // quotas, analysis cache, cached premium status
    redisReadKeys: BLACKLIST.keys,
    subscribes: [],
    publishesChannels: [],
    database: true,
    nats: true,
  },
  notifications: {
    publishes: [],
    durables: ['notifications', 'notifications-reminders', 'notifications-reminder-rewards'],
    // webhook endpoints' cache version, recent reminders (a review within 2 h rewards the template)
    redisKeys: ['notifications:*'],
    redisReadKeys: BLACKLIST.keys,
    subscribes: [],
    publishesChannels: [],
    database: true,
    nats: true,
  },
};

/** Events in the activity stream, as libs/events/src/streams.ts ACTIVITY_EVENTS (a test compares them). */
const ACTIVITY_EVENTS = new Set(['card.reviewed']);

/** The NATS user with every right: the operator (stream limits, inspection), never a service. */
const NATS_ADMIN = 'lingua-admin';

/**
 * What a service's NATS user may publish: its own events, its own consumers' dead letters, and of
 * the JetStream API only reading and creating the two streams and reading, creating and pulling
 * from its own durables (with their acks). Not: updating, deleting or purging a stream (a stream's
 * config can republish or source messages onto another subject), other consumers, direct gets.
 */
function natsPublishAllow(name, { prefix = 'events', stream = 'EVENTS' } = {}) {
  const a = ACCESS[name];
  // the event stream, the activity stream (ACTIVITY_EVENTS) and the dead letters (libs/events streams.ts)
  const streams = [stream, `${stream}_ACTIVITY`, `${stream}_DLQ`];
  const subjectOf = (e) => (ACTIVITY_EVENTS.has(e) ? `${prefix}_activity.${e}` : `${prefix}.${e}`);
  return [
    ...a.publishes.map(subjectOf),
    ...a.durables.map((d) => `${prefix}_dlq.${d}`),
    '$JS.API.INFO',
    ...streams.flatMap((s) => [`$JS.API.STREAM.INFO.${s}`, `$JS.API.STREAM.CREATE.${s}`]),
    // a durable lives on the stream of its events: its own name on either event stream
    ...streams
      .slice(0, 2)
      .flatMap((s) =>
        a.durables.flatMap((d) => [
          `$JS.API.CONSUMER.INFO.${s}.${d}`,
          `$JS.API.CONSUMER.CREATE.${s}.${d}`,
          `$JS.API.CONSUMER.CREATE.${s}.${d}.>`,
          `$JS.API.CONSUMER.DURABLE.CREATE.${s}.${d}`,
          `$JS.API.CONSUMER.MSG.NEXT.${s}.${d}`,
          `$JS.ACK.${s}.${d}.>`,
        ]),
      ),
  ];
}

const natsServices = () => Object.keys(ACCESS).filter((n) => ACCESS[n].nats);
const quote = (s) => JSON.stringify(s);

/**
 * The `authorization` block of nats-server's config: one user per service, plus the operator.
 * `password(user)` gives each user's password as it goes into the file: a quoted literal, or an
 * environment variable reference (`$IDENTITY_NATS_PASSWORD`, which nats-server resolves at start).
 */
function natsAuthorization({ prefix, stream, password }) {
  const user = (name, publish, subscribe) =>
    [
      '    {',
      `      user: ${quote(name)}`,
      `      password: ${password(name)}`,
      '      permissions: {',
      `        publish: { allow: [${publish.map(quote).join(', ')}] }`,
      `        subscribe: { allow: [${subscribe.map(quote).join(', ')}] }`,
      '      }',
      '    }',
    ].join('\n');
  return [
    '# generated by deploy/local/infra-credentials.js: one user per service (docs/adr/0019)',
    'authorization {',
    '  users = [',
    ...natsServices().map((n) => user(n, natsPublishAllow(n, { prefix, stream }), ['_INBOX.>'])),
    user(NATS_ADMIN, ['>'], ['>']),
    '  ]',
    '}',
    '',
  ].join('\n');
}

/**
 * One Redis ACL rule per deployable (the arguments after `user <name>`): its own key patterns read
 * and write, the blacklist's read-only (`%R~`), its channels, and no dangerous or administrative
 * command (KEYS, FLUSHALL, CONFIG, ACL, ...); PUBLISH only where it announces, SUBSCRIBE only where it
 * listens. `secret` is the password as written (`>password`, or `#<sha256>`).
 */
function redisAclRule(name, secret) {
  const a = ACCESS[name];
  const pubsub = [];
  if (a.publishesChannels.length) pubsub.push('+publish');
  if (a.subscribes.length) pubsub.push('+subscribe', '+unsubscribe');
  return [
    'on',
    secret,
    'resetkeys',
    'resetchannels',
    ...a.redisKeys.map((k) => `~${k}`),
    ...a.redisReadKeys.map((k) => `%R~${k}`),
    ...[...a.publishesChannels, ...a.subscribes].map((c) => `&${c}`),
    '+@all',
    '-@dangerous',
    '-@admin',
    '-@pubsub',
    ...pubsub,
  ];
}

/** The default user, off: a client that does not authenticate can do nothing. */
const REDIS_DEFAULT_OFF = ['default', 'off', 'resetkeys', 'resetchannels', '-@all'];

/** redis-server arguments declaring every user (`--user <name> <rules...>` each). */
function redisUserArgs(secret) {
  return [
    ['--user', ...REDIS_DEFAULT_OFF],
    ...Object.keys(ACCESS).map((n) => ['--user', n, ...redisAclRule(n, secret(n))]),
  ];
}

/** Fresh random passwords (hex: safe in URLs, configs and ACL rules) for every user. */
function generatePasswords() {
  // a letter first: nats-server parses an environment variable's value as a config value, and one
  // that starts with a digit is read as a number and refused (the server does not start)
  const pw = () => `p${crypto.randomBytes(24).toString('hex')}`;
  const nats = Object.fromEntries([...natsServices(), NATS_ADMIN].map((n) => [n, pw()]));
  const redis = Object.fromEntries(Object.keys(ACCESS).map((n) => [n, pw()]));
  const mongo = Object.fromEntries(
    Object.keys(ACCESS)
      .filter((n) => ACCESS[n].database)
      .map((n) => [n, pw()]),
  );
  return { nats, redis, mongo };
}

/** `scheme://user:password@host...` for each URL of a comma-separated list (NATS seed lists). */
function withCredentials(urls, user, password) {
  return urls
    .split(',')
    .map((u) => {
      const url = new URL(u.trim());
      url.username = encodeURIComponent(user);
      url.password = encodeURIComponent(password);
      return url.toString().replace(/\/$/, '');
    })
    .join(',');
}

/**
 * The database users, one per service, each with readWrite on its own database only: created (or
 * re-created with a new password) through `adminUrl`. `users`: [{ user, pwd, db }].
 */
async function ensureMongoUsers(adminUrl, users) {
  const { MongoClient } = require('mongodb');
  const client = await MongoClient.connect(adminUrl, { serverSelectionTimeoutMS: 5000 });
  try {
    for (const { user, pwd, db } of users) {
      await client
        .db(db)
        .command({ dropUser: user })
        .catch(() => undefined);
      await client.db(db).command({ createUser: user, pwd, roles: [{ role: 'readWrite', db }] });
    }
  } finally {
    await client.close();
  }
}

async function dropMongoUsers(adminUrl, users) {
  const { MongoClient } = require('mongodb');
  const client = await MongoClient.connect(adminUrl, { serverSelectionTimeoutMS: 5000 });
  try {
    for (const { user, db } of users)
      await client
        .db(db)
        .command({ dropUser: user })
        .catch(() => undefined);
  } finally {
    await client.close();
  }
}

/** A MongoDB URL for `serverUrl`'s hosts, logged in as this user (checked against its database). */
function mongoUrlFor(serverUrl, { user, pwd, db }) {
  const m = /^(mongodb(?:\+srv)?:\/\/)(?:[^@/]*@)?([^/?]+)\/?([^?]*)(?:\?(.*))?$/.exec(serverUrl);
  if (!m) throw new Error(`not a MongoDB URL: ${serverUrl}`);
  const params = new URL(`http://x/?${m[4] ?? ''}`).searchParams;
  params.set('authSource', db);
  params.set('authMechanism', 'SCRAM-SHA-256');
  return `${m[1]}${encodeURIComponent(user)}:${encodeURIComponent(pwd)}@${m[2]}/${m[3]}?${params}`;
}

// ---------------------------------------------------------------- files for compose and Kubernetes

const ROOT = path.resolve(__dirname, '../..');
const envName = (service, infra) => `${service.toUpperCase()}_${infra}_PASSWORD`;

/** The rendered files under deploy/infra-auth/ (path → content). */
function renderedFiles() {
  const nats = natsAuthorization({
    prefix: 'events',
    stream: 'EVENTS',
    password: (user) => (user === NATS_ADMIN ? '$NATS_ADMIN_PASSWORD' : `$${envName(user, 'NATS')}`),
  });
  const redis = [
    '# generated by deploy/local/infra-credentials.js: one ACL user per deployable (docs/adr/0019).',
    '# An ACL file needs the passwords written out: replace each <SERVICE>_REDIS_PASSWORD placeholder',
    '# (or give `#<sha256 of the password>` instead of `>password`), e.g. with envsubst.',
    `user ${REDIS_DEFAULT_OFF.join(' ')}`,
    ...Object.keys(ACCESS).map(
      (n) => `user ${n} ${redisAclRule(n, `>\${${envName(n, 'REDIS')}}`).join(' ')}`,
    ),
    '',
  ].join('\n');
  return {
    'deploy/infra-auth/nats-auth.conf': nats,
    'deploy/infra-auth/redis-users.acl': redis,
  };
}

module.exports = {
  ACCESS,
  ACTIVITY_EVENTS,
  NATS_ADMIN,
  natsPublishAllow,
  natsAuthorization,
  redisAclRule,
  redisUserArgs,
  generatePasswords,
  withCredentials,
  ensureMongoUsers,
  dropMongoUsers,
  mongoUrlFor,
  renderedFiles,
  envName,
};

if (require.main === module && process.argv[2] === 'render') {
  for (const [file, content] of Object.entries(renderedFiles())) {
    fs.mkdirSync(path.dirname(path.join(ROOT, file)), { recursive: true });
    fs.writeFileSync(path.join(ROOT, file), content);
    console.log(`wrote ${file}`);
  }
}
