#!/usr/bin/env node
// Re-publishes dead letters to the subject they came from, for the consumer that dead-lettered them
// (docs/operations/runbook.md#replaying-dead-letters). Each letter is removed from the dead-letter
// stream only after the event stream acknowledged the re-published copy, so a crash mid-run loses
// nothing (a letter replayed twice is dropped by the duplicate window or the processed-event record).
//
//   npm run events:replay -- [--dry-run] [--consumer <durable>] [--event <name>] [--subject <subject>]
//                            [--stream <EVENTS>] [--prefix <events>] [--limit <n>]
//
// NATS_URL (with the operator's credentials), EVENTS_STREAM and EVENTS_SUBJECT_PREFIX are read from
// the environment like the services read them; the options override the last two. Needs the build
// (npm run build). Prints one JSON line per letter and a summary; exits 1 if any replay failed.
const { parseArgs } = require('node:util');
const {
  connectNats,
  deadLetterStreamFor,
  eventBusConfig,
  REPLAY_FOR_HEADER,
} = require('../libs/events/dist');
const { headers: natsHeaders } = require('@nats-io/nats-core');

const USAGE =
  'usage: npm run events:replay -- [--dry-run] [--consumer <durable>] [--event <name>] [--subject <subject>] [--stream <name>] [--prefix <prefix>] [--limit <n>]';

/** Headers the dead-lettering added or the server owns: not carried onto the replayed copy. */
const DROPPED =
  /^(x-dead-letter-reason|x-original-subject|x-original-stream|x-original-seq|x-consumer|x-delivery-count|x-failed-attempts|nats-msg-id|nats-expected-.*)$/i;

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        'dry-run': { type: 'boolean', default: false },
        consumer: { type: 'string' },
        event: { type: 'string' },
        subject: { type: 'string' },
        stream: { type: 'string' },
        prefix: { type: 'string' },
        limit: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    process.exit(2);
  }
  if (parsed.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const limit = parsed.limit === undefined ? Infinity : Number(parsed.limit);
  if (!(limit > 0)) {
    console.error(`--limit must be a positive number\n${USAGE}`);
    process.exit(2);
  }
  return { ...parsed, limit };
}

/** The event name inside a letter, or undefined when its body is not an event envelope. */
function eventNameOf(data) {
  try {
    const name = JSON.parse(Buffer.from(data).toString('utf8'))?.event;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

async function main() {
  const opts = options();
  const bus = eventBusConfig({
    streamName: opts.stream ?? process.env.EVENTS_STREAM ?? 'EVENTS',
    subjectPrefix: opts.prefix ?? process.env.EVENTS_SUBJECT_PREFIX ?? 'events',
  });
  const dlq = deadLetterStreamFor(bus);
  const filter = `${bus.subjectPrefix}_dlq.${opts.consumer ?? '>'}`;
  const nats = await connectNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', { name: 'events-replay' });
  const summary = { stream: dlq, dryRun: opts['dry-run'], matched: 0, replayed: 0, failed: 0 };
  try {
    let seq = 1;
    while (summary.matched < opts.limit) {
      // the next letter at or after seq on the filter (null: none left)
      const letter = await nats.jsm.streams.getMessage(dlq, { seq, next_by_subj: filter });
      if (!letter) break;
      seq = letter.seq + 1;
      const consumer =
        letter.header?.get('x-consumer') || letter.subject.slice(`${bus.subjectPrefix}_dlq.`.length);
      const subject = letter.header?.get('x-original-subject');
      const event = eventNameOf(letter.data);
      if (opts.event && event !== opts.event) continue;
      if (opts.subject && subject !== opts.subject) continue;
      summary.matched++;
      const row = {
        seq: letter.seq,
        consumer,
        subject,
        event,
        id: (() => {
          try {
            return letter.json().id;
          } catch {
            return undefined;
          }
        })(),
        deadLetteredAt: letter.time.toISOString(),
        reason: letter.header?.get('x-dead-letter-reason') || undefined,
      };
      if (opts['dry-run']) {
        console.log(JSON.stringify(row));
        continue;
      }
      if (!subject) {
        summary.failed++;
        console.log(JSON.stringify({ ...row, outcome: 'skipped: no x-original-subject header' }));
        continue;
      }
      try {
        const h = natsHeaders();
        for (const k of letter.header?.keys() ?? []) if (!DROPPED.test(k)) h.set(k, letter.header.get(k));
        h.set(REPLAY_FOR_HEADER, consumer);
        h.set('x-replayed-from', `${dlq}:${letter.seq}`);
        // a new id for the de-duplication window: the original's would be dropped inside it; a second
        // run over the same letter (crash before the delete) is still dropped as a duplicate
        const ack = await nats.js.publish(subject, letter.data, {
          headers: h,
          msgID: `replay:${dlq}:${letter.seq}`,
        });
        await nats.jsm.streams.deleteMessage(dlq, letter.seq, false);
        summary.replayed++;
        console.log(JSON.stringify({ ...row, outcome: 'replayed', stream: ack.stream, newSeq: ack.seq }));
      } catch (err) {
        summary.failed++;
        console.log(JSON.stringify({ ...row, outcome: `failed: ${err.message}` }));
      }
    }
  } finally {
    await nats.close();
  }
  console.log(JSON.stringify({ summary }));
  if (summary.failed > 0) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
