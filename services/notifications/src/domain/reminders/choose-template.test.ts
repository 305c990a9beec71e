import {
  type BanditOptions,
  type BanditStats,
  DEFAULT_BANDIT_OPTIONS,
  type TemplateStats,
  chooseTemplate,
} from './choose-template';
import { REMINDER_TEMPLATE_IDS, type ReminderTemplateId, eligibleTemplates } from './reminder-templates';

const DAY_MS = 24 * 3600 * 1000;

/** mulberry32: a small seeded PRNG, so the simulation gives the same figures on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The synthetic users' truth. A template's chance of a review within 2 h, when fresh:
const BASE_RATE: Record<ReminderTemplateId, number> = {
  streak: 0.1,
  due_cards: 0.12,
  goal: 0.2,
  short: 0.08,
  comeback: 0.15,
};
// ...less up to 70 % when the user got the same template lately, recovering with a 4-day half-life
// (a template wears out: the novelty effect the paper's recency penalty is for). The bandit is not
// told these figures; its own half-life (6 days) differs on purpose.
const WEAR = 0.7;
const WEAR_HALF_LIFE_DAYS = 4;
// users with a streak respond more whatever they are sent: comeback (offered only to users without
// one) looks worse than it is unless a template is compared with what else those users could get
const ENGAGEMENT = { withStreak: 1.3, withoutStreak: 0.6 };

const USERS = 2000;
const DAYS = 60;
const WINDOW_DAYS = 30;
const LAST_DAYS = 10;

interface SimulationResult {
  /** Reward rate over all days, and over the last LAST_DAYS. */
  rewardRate: number;
  lastRewardRate: number;
  /** Per template over the last LAST_DAYS: share of sends, reward rate of its sends. */
  share: Record<ReminderTemplateId, number>;
  templateRate: Record<ReminderTemplateId, number>;
  /** Choices of a template that was not eligible (must stay 0). */
  ineligibleChoices: number;
}

const emptyStats = (): TemplateStats => ({ sends: 0, rewarded: 0, baselineSends: 0, baselineRewarded: 0 });

/**
 * USERS users get one reminder a day for DAYS days; the statistics are what the send log's stats()
 * would give: sends of the last WINDOW_DAYS whose outcome is known (yesterday and before).
 */
function simulate(options: BanditOptions, seed = 37): SimulationResult {
  const world = prng(seed);
  const choice = prng(seed + 1);
  const users = Array.from({ length: USERS }, () => ({
    streak: world() < 0.7 ? 1 + Math.floor(world() * 100) : 0,
    dailyGoal: 10 + Math.floor(world() * 20),
    lastSeen: {} as Partial<Record<ReminderTemplateId, Date>>,
  }));
  const buckets: BanditStats[] = [];
  let rewards = 0;
  let lastRewards = 0;
  let lastSends = 0;
  let ineligibleChoices = 0;
  const sends = Object.fromEntries(REMINDER_TEMPLATE_IDS.map((id) => [id, 0])) as Record<
    ReminderTemplateId,
    number
  >;
  const rewarded = { ...sends };

  for (let day = 0; day < DAYS; day++) {
    const stats: BanditStats = {};
    for (const bucket of buckets.slice(Math.max(0, day - WINDOW_DAYS), day))
      for (const [id, s] of Object.entries(bucket) as [ReminderTemplateId, TemplateStats][]) {
        const into = (stats[id] ??= emptyStats());
        into.sends += s.sends;
        into.rewarded += s.rewarded;
        into.baselineSends += s.baselineSends;
        into.baselineRewarded += s.baselineRewarded;
      }
    const today: BanditStats = {};
    buckets.push(today);
    const now = new Date(Date.UTC(2026, 0, 1) + day * DAY_MS);

    for (const user of users) {
      const context = {
        streak: user.streak,
        dueCards: world() < 0.75 ? 1 + Math.floor(world() * 50) : 0,
        dailyGoal: user.dailyGoal,
        reviewedToday: 0,
      };
      const eligible = eligibleTemplates(context);
      const { templateId, fresh } = chooseTemplate({
        eligible,
        stats,
        userLastSeen: user.lastSeen,
        now,
        options,
        random: choice,
      });
      if (!eligible.includes(templateId)) ineligibleChoices++;

      const seen = user.lastSeen[templateId];
      const daysSince = seen ? (now.getTime() - seen.getTime()) / DAY_MS : Infinity;
      const engagement = user.streak > 0 ? ENGAGEMENT.withStreak : ENGAGEMENT.withoutStreak;
      const p = engagement * BASE_RATE[templateId] * (1 - WEAR * 0.5 ** (daysSince / WEAR_HALF_LIFE_DAYS));
      const reward = world() < p ? 1 : 0;
      user.lastSeen[templateId] = now;

      for (const id of fresh) {
        const s = (today[id] ??= emptyStats());
        if (id === templateId) {
          s.sends++;
          s.rewarded += reward;
        } else {
          s.baselineSends++;
          s.baselineRewarded += reward;
        }
      }
      rewards += reward;
      if (day >= DAYS - LAST_DAYS) {
        lastSends++;
        lastRewards += reward;
        sends[templateId]++;
        rewarded[templateId] += reward;
      }
    }
  }
  const per = (f: (id: ReminderTemplateId) => number) =>
    Object.fromEntries(REMINDER_TEMPLATE_IDS.map((id) => [id, f(id)])) as Record<ReminderTemplateId, number>;
  return {
    rewardRate: rewards / (USERS * DAYS),
    lastRewardRate: lastRewards / lastSends,
    share: per((id) => sends[id] / lastSends),
    templateRate: per((id) => (sends[id] ? rewarded[id] / sends[id] : 0)),
    ineligibleChoices,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${pct(x)}`;

function table(results: Record<string, SimulationResult>): string {
  const names = Object.keys(results);
  const rows = [
    ['', ...names.flatMap((n) => [`${n} share`, `${n} rate`])],
    ...REMINDER_TEMPLATE_IDS.map((id) => [
      `${id} (base ${pct(BASE_RATE[id])})`,
      ...names.flatMap((n) => [pct(results[n]!.share[id]), pct(results[n]!.templateRate[id])]),
    ]),
    ['reward rate, last 10 days', ...names.flatMap((n) => [pct(results[n]!.lastRewardRate), ''])],
    ['reward rate, all 60 days', ...names.flatMap((n) => [pct(results[n]!.rewardRate), ''])],
    [
      'vs uniform, last 10 / all days',
      ...names.flatMap((n) => [
        `${signed(results[n]!.lastRewardRate / results.uniform!.lastRewardRate - 1)} / ${signed(results[n]!.rewardRate / results.uniform!.rewardRate - 1)}`,
        '',
      ]),
    ],
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n');
}

describe('choosing a reminder template: the simulation', () => {
  const results: Record<string, SimulationResult> = {};
  beforeAll(() => {
    results.uniform = simulate({ ...DEFAULT_BANDIT_OPTIONS, enabled: false });
    results.rdsNoRecency = simulate({ ...DEFAULT_BANDIT_OPTIONS, recencyPenalty: 0 });
    results.rds = simulate(DEFAULT_BANDIT_OPTIONS);
    // the figures ADR 0029 quotes
    // eslint-disable-next-line no-console
    console.log(
      `Reminder bandit simulation: ${USERS} users x ${DAYS} days, shares and rates over the last ${LAST_DAYS} days\n` +
        table(results),
    );
  });

  it('When the bandit has learned for 50 days, Then it sends the best template clearly more often than uniform choice does', () => {
    expect(results.rds!.share.goal).toBeGreaterThan(1.5 * results.uniform!.share.goal);
    // and the worst one less
    expect(results.rds!.share.short).toBeLessThan(results.uniform!.share.short);
  });

  it('When the bandit chooses, Then more reminders are followed by a review than with uniform choice', () => {
    // +15 to +17 % on seeds 1 to 5 (ADR 0029): 10 % leaves room for a change of seed, not for a bandit
    // that learns nothing
    expect(results.rds!.lastRewardRate).toBeGreaterThan(1.1 * results.uniform!.lastRewardRate);
    expect(results.rds!.rewardRate).toBeGreaterThan(1.1 * results.uniform!.rewardRate);
  });

  it('When templates wear out, Then the recency penalty earns more than the same bandit without it', () => {
    expect(results.rds!.lastRewardRate).toBeGreaterThan(results.rdsNoRecency!.lastRewardRate);
  });

  it('When a template is not eligible, Then no policy ever chooses it', () => {
    for (const r of Object.values(results)) expect(r.ineligibleChoices).toBe(0);
  });
});

describe('choosing a reminder template', () => {
  const now = new Date('2026-03-01T08:00:00Z');
  // goal far ahead of the others, every template well measured
  const stats: BanditStats = Object.fromEntries(
    REMINDER_TEMPLATE_IDS.map((id) => [
      id,
      { sends: 1000, rewarded: id === 'goal' ? 300 : 100, baselineSends: 1000, baselineRewarded: 120 },
    ]),
  );
  const choose = (over: Partial<Parameters<typeof chooseTemplate>[0]> = {}) =>
    chooseTemplate({
      eligible: ['streak', 'due_cards', 'goal', 'short'],
      stats,
      userLastSeen: {},
      now,
      options: DEFAULT_BANDIT_OPTIONS,
      random: prng(1),
      ...over,
    });

  it('When operators switch the bandit off, Then every eligible template is equally likely, whatever the statistics', () => {
    // Arrange
    const random = prng(7);
    const counts: Record<string, number> = {};
    const options = { ...DEFAULT_BANDIT_OPTIONS, enabled: false };

    // Act
    const first = choose({ options, random });
    for (let i = 0; i < 20_000; i++) {
      const { templateId } = choose({ options, random });
      counts[templateId] = (counts[templateId] ?? 0) + 1;
    }

    // Assert
    expect(first.probabilities).toEqual({ streak: 0.25, due_cards: 0.25, goal: 0.25, short: 0.25 });
    for (const id of ['streak', 'due_cards', 'goal', 'short'])
      expect(counts[id]! / 20_000).toBeCloseTo(0.25, 1);
    // the scores are still kept: the audit shows what the bandit would have preferred
    expect(first.scores.goal).toBeGreaterThan(first.scores.short!);
  });

  it('When the best-scoring template is not eligible, Then it is never chosen and has no probability', () => {
    const random = prng(3);
    const chosen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const c = choose({ eligible: ['short', 'comeback'], random });
      chosen.add(c.templateId);
      expect(Object.keys(c.probabilities).sort()).toEqual(['comeback', 'short']);
    }
    expect([...chosen].sort()).toEqual(['comeback', 'short']);
  });

  it('When the user got a template yesterday, Then it is less likely, and it recovers over the following weeks', () => {
    const day = (n: number) => new Date(now.getTime() - n * DAY_MS);
    const p = (daysAgo: number) => choose({ userLastSeen: { goal: day(daysAgo) } }).probabilities.goal!;
    expect(p(1)).toBeLessThan(p(4));
    expect(p(4)).toBeLessThan(p(12));
    expect(p(40)).toBeCloseTo(choose().probabilities.goal!, 3);
    // and yesterday's template is not fresh: today's send does not count for its statistics
    expect(choose({ userLastSeen: { goal: day(1) } }).fresh).not.toContain('goal');
  });

  it('When a template has too few sends to judge, Then it scores as neutral and exploration still tries every template', () => {
    const c = choose({ stats: { goal: { sends: 3, rewarded: 3, baselineSends: 3, baselineRewarded: 0 } } });
    expect(c.scores.goal).toBe(0);
    const skewed = choose();
    for (const id of ['streak', 'due_cards', 'short'] as const)
      expect(skewed.probabilities[id]).toBeGreaterThanOrEqual(DEFAULT_BANDIT_OPTIONS.exploration / 4);
    expect(skewed.probabilities.goal).toBeGreaterThan(0.8);
  });

  it("When the same random numbers are given, Then the same template is chosen, whatever the order of the caller's list", () => {
    const a = Array.from({ length: 50 }, (_, i) => choose({ random: prng(i) }).templateId);
    const b = Array.from(
      { length: 50 },
      (_, i) => choose({ random: prng(i), eligible: ['short', 'goal', 'due_cards', 'streak'] }).templateId,
    );
    expect(b).toEqual(a);
  });
});
