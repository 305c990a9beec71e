// Which lane runs which test file. `npm test` runs them all (jest.config.js, then the short chaos
// run); the lanes split that same set by what a test needs, so a change can be checked in seconds
// before the whole gate. test/lanes/lanes.test.ts fails when a file is in no lane or in two.

/**
 * Tests outside src/ that need nothing started: pure domain rules, codecs, config schemas and
 * bench arithmetic that happen to sit with their service's component tests.
 */
const UNIT_OUTSIDE_SRC = [
  'gateway/test/openapi-fragments.test.ts',
  'services/ai/test/config.test.ts',
  'services/flashcards/test/achievements.rules.test.ts',
  'services/flashcards/test/export-import.openapi.test.ts',
  'services/flashcards/test/portability.codecs.test.ts',
  'test/bench/journey-stats.test.ts',
  'test/bench/soak-memory.test.ts',
  'test/contract/bench-report.test.ts',
  'test/contract/figures-single-home.test.ts',
  'test/platform/lockfile.test.ts',
  'test/platform/shard-keys.test.ts',
];

/** Colocated src/ tests that need more than the process: a server, Debian data or a build. */
const SRC_NEEDING_MORE = [
  // Redis
  'libs/auth/src/authenticate.test.ts',
  'libs/auth/src/blacklist-mirror.test.ts',
  'libs/auth/src/mirrored-blacklist.test.ts',
  'libs/redis/src/connect.test.ts',
  // NATS and the database
  'libs/events/src/consumer-failures.test.ts',
  'libs/events/src/events.test.ts',
  'libs/events/src/nats-connection.test.ts',
  'libs/events/src/outbox.test.ts',
  'libs/events/src/streams.test.ts',
  'libs/mongo/src/connect.test.ts',
  'libs/mongo/src/deadline-plugin.test.ts',
  'libs/mongo/src/gridfs.test.ts',
  'libs/mongo/src/indexes.test.ts',
  'libs/mongo/src/mongo.test.ts',
  'libs/mongo/src/monitor-watchdog.test.ts',
  'libs/testing/src/test-resources.test.ts',
  // the AI service's Debian language data (WordNet, FreeDict) under /usr/share
  'services/ai/src/data-access/freedict.dictionary.test.ts',
  'services/ai/src/data-access/mueller.dictionary.test.ts',
  'services/ai/src/data-access/pivot.dictionary.test.ts',
  'services/ai/src/data-access/wordnet.lexicon.test.ts',
  // runs the compiled dist/
  'libs/logger/src/logger-stdout.test.ts',
];

/** Component tests outside test/ that drive a tool only `infra.sh up --test-tools` installs. */
const PLATFORM_OUTSIDE_TEST = [
  // Chromium renders the API docs page
  'gateway/test/docs.test.ts',
];

/** A path list as jest path patterns (regular expressions matched against absolute paths). */
const patterns = (files) => files.map((f) => `<rootDir>/${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

module.exports = { UNIT_OUTSIDE_SRC, SRC_NEEDING_MORE, PLATFORM_OUTSIDE_TEST, patterns };
