import { parseInput } from '@lingua/errors';
import type { GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import {
  CardStatsInput,
  type CardCountsStore,
  type DueCounter,
  getCardStats,
} from '../../domain/card-stats.use-case';
import type { LearningProfileRepository } from '../../domain/ports';
import { LearningPreferencesInput, setLearningPreferences } from '../../domain/learning/learning.use-case';

/**
 * FlashcardsService; each RPC names the services that may call it (identity: a profile's counts and
 * goal, and the goal and time zone its settings and profile set).
 */
export function registerFlashcardsGrpc(
  server: GrpcServer,
  deps: {
    counts: CardCountsStore;
    due: DueCounter;
    profiles: LearningProfileRepository;
    now: () => Date;
  },
): void {
  server.addService(
    loadPackage().lingua.flashcards.v1.FlashcardsService.service,
    {
      GetCardStats: async (req) => {
        const input = parseInput(CardStatsInput, { userId: req.user_id });
        const [s, profile] = await Promise.all([getCardStats(input, deps), deps.profiles.get(input.userId)]);
        return {
          daily_goal: profile.dailyGoal,
          timezone: profile.timezone ?? '',
          reminder_enabled: profile.reminderEnabled,
          reminder_time: profile.reminderTime,
          total_cards: s.totalCards,
          due_cards: s.dueCards,
          mastered_cards: s.masteredCards,
          favorite_cards: s.favoriteCards,
        };
      },
      SetLearningPreferences: async (req) => {
        const input = parseInput(LearningPreferencesInput, {
          userId: req.user_id,
          dailyGoal: req.daily_goal ?? undefined,
          timezone: req.timezone ?? undefined,
          reminderEnabled: req.reminder_enabled ?? undefined,
          reminderTime: req.reminder_time ?? undefined,
        });
        const p = await setLearningPreferences(input, { profiles: deps.profiles, now: deps.now });
        return { daily_goal: p.dailyGoal };
      },
    },
    { GetCardStats: ['identity'], SetLearningPreferences: ['identity'] },
  );
}
