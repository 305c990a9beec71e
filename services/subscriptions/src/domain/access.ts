import type { Caller } from './owner';
import {
  type FeatureId,
  FREE_FEATURES,
  hasAccess,
  PREMIUM_FEATURES,
  type Subscription,
} from './subscription';

export type AccessLevel = 'admin' | 'premium' | 'free';

/** Admins by role; premium by a subscription that still gives access (not by a possibly stale token claim). */
export function accessLevel(caller: Caller, sub: Subscription | undefined, now: Date): AccessLevel {
  if (caller.role === 'admin') return 'admin';
  return hasAccess(sub, now) ? 'premium' : 'free';
}

/** Spec role table → access_permissions of the status operation. */
export function accessPermissions(level: AccessLevel, dialoguesToday: number, freePerDay: number) {
  const unlimited = level !== 'free';
  return {
    dialogue_training: {
      has_access: unlimited || dialoguesToday < freePerDay,
      access_type: unlimited ? 'unlimited' : 'limited',
      restrictions: unlimited
        ? []
        : [
            `${freePerDay} dialogue practices per day (${Math.max(0, freePerDay - dialoguesToday)} left today)`,
            'advanced scenarios require a subscription',
          ],
    },
    advanced_features: {
      detailed_analysis: unlimited,
      progress_reports: unlimited,
      priority_support: unlimited,
      offline_content: unlimited,
    },
  };
}

export interface FeatureAccess {
  hasAccess: boolean;
  reason: string;
}

/** Whether a feature is open to the caller, and why (pure). */
export function featureAccess(
  feature: FeatureId,
  level: AccessLevel,
  sub: Subscription | undefined,
  dialoguesToday: number,
  freePerDay: number,
  now: Date,
): FeatureAccess {
  if ((FREE_FEATURES as readonly string[]).includes(feature))
    return { hasAccess: true, reason: 'free_feature' };
  if (level === 'admin') return { hasAccess: true, reason: 'admin_role' };
  if (level === 'premium')
    return {
      hasAccess: true,
      reason:
        sub?.status === 'cancelled'
          ? 'active_until_period_end'
          : sub?.isTrialPeriod
            ? 'trial_period'
            : 'active_subscription',
    };
  if (feature === 'dialogue_training' && dialoguesToday < freePerDay)
    return { hasAccess: true, reason: 'free_tier_daily_quota' };
  if (feature === 'dialogue_training') return { hasAccess: false, reason: 'daily_limit_reached' };
  if (sub && sub.status === 'expired') return { hasAccess: false, reason: 'subscription_expired' };
  if (sub && sub.status === 'cancelled' && sub.expiresAt <= now)
    return { hasAccess: false, reason: 'subscription_cancelled' };
  if (sub && sub.status === 'pending') return { hasAccess: false, reason: 'payment_pending' };
  return { hasAccess: false, reason: 'subscription_required' };
}

export const isPremiumFeature = (feature: string) =>
  (PREMIUM_FEATURES as readonly string[]).includes(feature);
