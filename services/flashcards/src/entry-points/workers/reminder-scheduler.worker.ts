import { periodicTask } from '@lingua/bootstrap';
import type { Logger } from '@lingua/logger';
import { remindersEligible, remindersSkipped } from '@lingua/metrics';
import { type RunReminderDeps, runDueReminder } from '../../domain/reminders/study-reminder';

export interface ReminderSchedulerOptions {
  intervalMs: number;
  /** Due reminders read per query (a stream: one batch in memory at a time). */
  batch: number;
  /** Reminders decided at once by this replica. */
  concurrency: number;
}

/**
 * Every `intervalMs`, decides the reminders due by now, oldest first, until none is left. Every
 * replica runs it: each reminder is taken by one (compare-and-set on its instant), so more replicas
 * share a busy minute instead of repeating it.
 */
export function reminderScheduler(
  deps: RunReminderDeps & { logger: Logger },
  options: ReminderSchedulerOptions,
) {
  const decide = async (p: Parameters<typeof runDueReminder>[0]) => {
    const outcome = await runDueReminder(p, deps);
    if (outcome === 'triggered') remindersEligible.inc();
    else if (outcome !== 'taken') remindersSkipped.inc({ reason: outcome });
  };
  return periodicTask(
    'flashcards reminder scheduler',
    options.intervalMs,
    async () => {
      for (;;) {
        let read = 0;
        const running = new Set<Promise<void>>();
        for await (const p of deps.schedule.due(deps.now(), options.batch)) {
          read++;
          const task: Promise<void> = decide(p)
            .catch((err: unknown) =>
              deps.logger.warn({ err, userId: p.userId }, 'reminder not decided; the next tick retries it'),
            )
            .finally(() => running.delete(task));
          running.add(task);
          if (running.size >= options.concurrency) await Promise.race(running);
        }
        await Promise.all(running);
        if (read < options.batch) return;
      }
    },
    deps.logger,
  );
}
