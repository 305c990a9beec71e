import { REMINDER_TEMPLATE_IDS, type ReminderTemplateId } from './reminder-templates';

const DAY_MS = 24 * 3600 * 1000;

/**
 * One template's record over the recent window, counted only on sends where the template was
 * eligible and fresh for the user (see `freshAfterDays`).
 */
export interface TemplateStats {
  /** Sends that used the template, and how many of them were rewarded (a review within 2 h). */
  sends: number;
  rewarded: number;
  /** Sends that used another template although this one could have gone out: its baseline. */
  baselineSends: number;
  baselineRewarded: number;
}
export type BanditStats = Partial<Record<ReminderTemplateId, TemplateStats>>;

export interface BanditOptions {
  /** false: uniform choice among the eligible templates (the operators' off switch). */
  enabled: boolean;
  /** Softmax temperature, in reward-rate units: a score this much higher weighs e times more. */
  temperature: number;
  /** The recency penalty halves every this many days since the user last got the template. */
  recencyHalfLifeDays: number;
  /** The penalty (reward-rate units) of a template the user got just now. */
  recencyPenalty: number;
  /** The share of choices spread uniformly, so that every eligible template keeps being measured. */
  exploration: number;
  /** Below this many sends on either side of the difference, a template's score is taken as 0. */
  minSends: number;
  /** A template the user has not had for this long counts as fresh in the statistics. */
  freshAfterDays: number;
}

/** Defaults chosen with the simulation in choose-template.test.ts (ADR 0029). */
export const DEFAULT_BANDIT_OPTIONS: BanditOptions = {
  enabled: true,
  temperature: 0.01,
  recencyHalfLifeDays: 6,
  recencyPenalty: 0.1,
  exploration: 0.05,
  minSends: 50,
  freshAfterDays: 3,
};

export interface ChooseTemplateInput {
  eligible: readonly ReminderTemplateId[];
  stats: BanditStats;
  /** When this user last got each template (absent: never, or before the window). */
  userLastSeen: Partial<Record<ReminderTemplateId, Date>>;
  now: Date;
  options: BanditOptions;
  /** Uniform in [0, 1): the only source of chance, so a choice is reproducible. */
  random: () => number;
}

export interface TemplateChoice {
  templateId: ReminderTemplateId;
  /** Each eligible template's score (difference minus recency penalty), kept for the audit. */
  scores: Partial<Record<ReminderTemplateId, number>>;
  /** The probability each eligible template had, kept for the audit. */
  probabilities: Partial<Record<ReminderTemplateId, number>>;
  /** The eligible templates this user had not had for `freshAfterDays`: the send counts for them. */
  fresh: ReminderTemplateId[];
}

const rate = (rewarded: number, sends: number) => rewarded / sends;

/**
 * The Recovering Difference Softmax choice (Yancey & Settles, KDD 2020): only eligible templates
 * compete ("sleeping" arms); a template's score is the reward rate of fresh sends that used it minus
 * that of sends that could have used it and did not (so eligibility does not flatter a template that
 * is only offered to keen users), less a penalty for having shown it to this user recently, which
 * decays with a half-life ("recovering"); the choice is a softmax over the scores, mixed with a
 * little uniform exploration.
 */
export function chooseTemplate(input: ChooseTemplateInput): TemplateChoice {
  const { stats, userLastSeen, now, options, random } = input;
  // a fixed order, so that the same random number gives the same template whatever the caller's order
  const eligible = REMINDER_TEMPLATE_IDS.filter((id) => input.eligible.includes(id));
  if (eligible.length === 0) throw new Error('chooseTemplate: no eligible template');

  const scores: Partial<Record<ReminderTemplateId, number>> = {};
  const fresh: ReminderTemplateId[] = [];
  for (const id of eligible) {
    const s = stats[id];
    const measured = s && s.sends >= options.minSends && s.baselineSends >= options.minSends;
    const difference = measured ? rate(s.rewarded, s.sends) - rate(s.baselineRewarded, s.baselineSends) : 0;
    const seen = userLastSeen[id];
    const daysSince = seen ? Math.max(0, (now.getTime() - seen.getTime()) / DAY_MS) : Infinity;
    const penalty = options.recencyPenalty * 0.5 ** (daysSince / options.recencyHalfLifeDays);
    scores[id] = difference - penalty;
    if (daysSince >= options.freshAfterDays) fresh.push(id);
  }

  const probabilities = options.enabled
    ? softmaxWithExploration(eligible, scores, options)
    : Object.fromEntries(eligible.map((id) => [id, 1 / eligible.length]));

  const draw = random();
  let cumulative = 0;
  let templateId = eligible[eligible.length - 1]!; // rounding may leave the sum a hair under 1
  for (const id of eligible) {
    cumulative += probabilities[id]!;
    if (draw < cumulative) {
      templateId = id;
      break;
    }
  }
  return { templateId, scores, probabilities, fresh };
}

function softmaxWithExploration(
  eligible: ReminderTemplateId[],
  scores: Partial<Record<ReminderTemplateId, number>>,
  { temperature, exploration }: BanditOptions,
): Partial<Record<ReminderTemplateId, number>> {
  // shifted by the best score: exp never overflows, whatever the temperature
  const best = Math.max(...eligible.map((id) => scores[id]!));
  const weights = eligible.map((id) => Math.exp((scores[id]! - best) / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  return Object.fromEntries(
    eligible.map((id, i) => [id, (1 - exploration) * (weights[i]! / total) + exploration / eligible.length]),
  );
}
