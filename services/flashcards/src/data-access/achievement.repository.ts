import type { Connection } from 'mongoose';
import type { AnyDomainEvent } from '@lingua/contracts';
import { stageEvents } from '@lingua/events';
import type { StoredUnlock } from '../domain/achievements/achievement-store';
import {
  type AchievementClaimDoc,
  type AchievementUnlockDoc,
  achievementClaimModel,
  achievementDocId,
  achievementUnlockModel,
} from './achievement.model';

export type AchievementRepository = ReturnType<typeof achievementRepository>;

export type ClaimResult =
  { status: 'claimed'; claimedXp: number } | { status: 'not_unlocked' } | { status: 'already_claimed' };

const isDuplicateKey = (err: unknown) => (err as { code?: number } | null)?.code === 11000;

export function achievementRepository(connection: Connection) {
  const Unlocks = achievementUnlockModel(connection);
  const Claims = achievementClaimModel(connection);

  const claimsOf = (userId: string) =>
    Claims.find({ userId }).select({ achievementId: 1, xp: 1, claimedAt: 1 }).lean<AchievementClaimDoc[]>();
  const claimedXpOf = async (userId: string) => (await claimsOf(userId)).reduce((sum, c) => sum + c.xp, 0);

  return {
    unlockModel: Unlocks,
    claimModel: Claims,

    async unlockedIds(userId: string): Promise<Set<string>> {
      const unlocks = await Unlocks.find({ userId })
        .select({ achievementId: 1 })
        .lean<AchievementUnlockDoc[]>();
      return new Set(unlocks.map((u) => u.achievementId));
    },

    async get(userId: string): Promise<{ unlocks: Map<string, StoredUnlock>; claimedXp: number }> {
      const [unlocks, claims] = await Promise.all([
        Unlocks.find({ userId })
          .select({ achievementId: 1, xp: 1, unlockedAt: 1 })
          .lean<AchievementUnlockDoc[]>(),
        claimsOf(userId),
      ]);
      const claimedAt = new Map(claims.map((c) => [c.achievementId, c.claimedAt]));
      return {
        unlocks: new Map(
          unlocks.map((u) => [
            u.achievementId,
            { unlockedAt: u.unlockedAt, claimedAt: claimedAt.get(u.achievementId) ?? null, xp: u.xp },
          ]),
        ),
        claimedXp: claims.reduce((sum, c) => sum + c.xp, 0),
      };
    },

    /**
     * Unlocks one achievement, staging its event in the same insert. The `_id` makes it exactly-once:
     * of concurrent callers one insert succeeds, the others get a duplicate key and report false.
     */
    async unlock(
      userId: string,
      achievementId: string,
      xp: number,
      now: Date,
      event: AnyDomainEvent,
    ): Promise<boolean> {
      try {
        await Unlocks.collection.insertOne({
          _id: achievementDocId(userId, achievementId),
          userId,
          achievementId,
          xp,
          unlockedAt: now,
          ...stageEvents(event).fields,
        } as never);
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        // a concurrent insert may surface as another error on the local server: the key decides
        if (await Unlocks.exists({ _id: achievementDocId(userId, achievementId) })) return false;
        throw err;
      }
    },

    /** Claims an unlocked achievement once: the claim is an insert keyed like the unlock. */
    async claim(userId: string, achievementId: string, now: Date): Promise<ClaimResult> {
      const id = achievementDocId(userId, achievementId);
      const unlock = await Unlocks.findOne({ _id: id }).select({ xp: 1 }).lean<AchievementUnlockDoc>();
      if (!unlock) return { status: 'not_unlocked' };
      try {
        await Claims.collection.insertOne({
          _id: id,
          userId,
          achievementId,
          xp: unlock.xp,
          claimedAt: now,
        } as never);
      } catch (err) {
        if (isDuplicateKey(err) || (await Claims.exists({ _id: id }))) return { status: 'already_claimed' };
        throw err;
      }
      return { status: 'claimed', claimedXp: await claimedXpOf(userId) };
    },

    async deleteAllOfUser(userId: string): Promise<number> {
      const [claims, unlocks] = await Promise.all([
        Claims.deleteMany({ userId }),
        Unlocks.deleteMany({ userId }),
      ]);
      return claims.deletedCount + unlocks.deletedCount;
    },
  };
}
