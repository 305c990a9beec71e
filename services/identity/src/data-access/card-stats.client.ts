import { type CallSigner, createGrpcClient } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import type { CardStatsSource } from '../domain/profile.use-case';

/**
 * Flashcards' GetCardStats with a short deadline (retried only while it fits). Rejects with an
 * AppError when flashcards is slow or down: the profile decides what to answer without the counts.
 */
/** How long a goal or zone change waits for flashcards (within the request's own deadline). */
const PREFERENCES_DEADLINE_MS = 5_000;

export function grpcCardStats(address: string, deadlineMs: number, signer: CallSigner): CardStatsSource {
  const client = createGrpcClient(loadPackage().lingua.flashcards.v1.FlashcardsService, address, {
    signer,
    defaultDeadlineMs: deadlineMs,
    // setting the same goal or zone again changes nothing: safe to retry
    idempotentMethods: ['GetCardStats', 'SetLearningPreferences'],
  });
  return {
    async forUser(userId) {
      const r = await client.call('GetCardStats', { user_id: userId });
      return {
        totalCards: r.total_cards,
        dueCards: r.due_cards,
        masteredCards: r.mastered_cards,
        favoriteCards: r.favorite_cards,
        dailyGoal: r.daily_goal,
        timezone: r.timezone || null,
        // '' from a flashcards that does not send the reminder yet: nothing to compare against
        reminder: r.reminder_time ? { enabled: r.reminder_enabled, time: r.reminder_time } : null,
      };
    },
    async setPreferences(userId, prefs) {
      const r = await client.call(
        'SetLearningPreferences',
        {
          user_id: userId,
          ...(prefs.dailyGoal !== undefined && { daily_goal: prefs.dailyGoal }),
          ...(prefs.timezone !== undefined && { timezone: prefs.timezone }),
          ...(prefs.reminderEnabled !== undefined && { reminder_enabled: prefs.reminderEnabled }),
          ...(prefs.reminderTime !== undefined && { reminder_time: prefs.reminderTime }),
        },
        // a write the answer waits for (the profile's counts are optional, this is not): the
        // request's own deadline bounds it, not the counts' short one
        { deadlineMs: PREFERENCES_DEADLINE_MS },
      );
      return { dailyGoal: r.daily_goal };
    },
    close: () => client.close(),
  };
}
