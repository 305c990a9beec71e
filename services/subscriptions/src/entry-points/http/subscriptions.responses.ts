import { z } from 'zod';
import { Offer, Plan } from '../../domain/catalogue';

// The `data` of the Group A subscription, dialogue and admin answers. The handlers send them with
// sendData, so the document and the use cases' results are checked against each other by tsc.
const isoTime = z.string().meta({ format: 'date-time' });
const count = z.number().int().min(0);
const status = z.enum(['active', 'expired', 'cancelled', 'pending']);
const platform = z.enum(['ios', 'android', 'none']);
const userType = z.string().meta({ description: 'registered or guest' });
const pricePaid = z.object({ amount: z.number(), currency: z.string(), was_discounted: z.boolean() });

export const PlansResult = z.object({
  available_plans: z.array(Plan.omit({ billing_period_days: true })),
  current_user_status: z.object({
    is_subscribed: z.boolean(),
    user_type: userType,
    device_id: z.string(),
    eligible_for_trial: z.boolean(),
    subscription_triggers: z.array(
      z.object({ trigger_id: z.string(), description: z.string(), timing: z.string() }),
    ),
  }),
});

export const OffersResult = z.object({
  active_offers: z.array(Offer.omit({ retention: true })),
  user_eligibility: z.object({
    eligible_offers: z.array(z.string()),
    ineligible_offers: z.array(z.object({ offer_id: z.string(), reason: z.string() })),
  }),
});

export const VerifyReceiptResult = z.object({
  subscription_created: z.object({
    subscription_id: z.string(),
    plan_id: z.string(),
    user_id: z.string().nullable(),
    device_id: z.string(),
    status,
  }),
  receipt_validation: z.object({
    is_valid: z.boolean(),
    platform: z.enum(['ios', 'android']),
    original_transaction_id: z.string(),
    purchase_date: isoTime,
    expires_date: isoTime,
    product_id: z.string(),
    auto_renew_status: z.boolean(),
  }),
  subscription_details: z.object({
    activated_at: isoTime,
    expires_at: isoTime,
    auto_renewal: z.boolean(),
    billing_cycle: z.string(),
    is_trial_period: z.boolean(),
    price_paid: pricePaid,
  }),
  unlocked_features: z.array(z.string()),
});

export const StatusResult = z.object({
  subscription_status: z.object({
    is_active: z.boolean(),
    subscription_id: z.string().nullable(),
    plan_id: z.string().nullable(),
    status: z.string().meta({ description: 'active, expired, cancelled, pending or none' }),
    activated_at: isoTime.nullable(),
    expires_at: isoTime.nullable(),
    days_remaining: count,
    auto_renewal: z.boolean(),
    billing_cycle: z.string().nullable(),
    renewal_checked: z.boolean().optional(),
  }),
  user_context: z.object({ user_type: userType, device_id: z.string(), platform: platform.nullable() }),
  access_permissions: z.object({
    dialogue_training: z.object({
      has_access: z.boolean(),
      access_type: z.string().meta({ description: 'unlimited or limited' }),
      restrictions: z.array(z.string()),
    }),
    advanced_features: z.object({
      detailed_analysis: z.boolean(),
      progress_reports: z.boolean(),
      priority_support: z.boolean(),
      offline_content: z.boolean(),
    }),
  }),
  usage_statistics: z.object({
    dialogues_this_month: count,
    analysis_requests: count,
    last_activity: isoTime.nullable(),
  }),
  features: z
    .object({
      unlocked: z.array(z.string()),
      locked: z.array(z.string()),
      always_available: z.array(z.string()),
    })
    .optional()
    .meta({ description: 'With include_features=true' }),
});

export const CancelResult = z.object({
  cancellation_processed: z.object({
    subscription_id: z.string(),
    cancellation_effective_date: isoTime,
    immediate_cancellation: z.boolean(),
    remaining_access_days: count,
  }),
  retention_offer: z
    .object({
      offer_id: z.string(),
      discount_percentage: z.number(),
      offer_description: z.string(),
      valid_until: z.string(),
      reactivation_url: z.string(),
    })
    .nullable(),
  feature_impact: z.object({
    features_will_be_disabled: z.array(z.string()),
    features_remain_accessible: z.array(z.string()),
  }),
});

export const SubscriptionView = z
  .object({
    subscription_id: z.string(),
    plan_id: z.string(),
    user_id: z.string().nullable(),
    device_id: z.string(),
    status,
    activated_at: isoTime,
    expires_at: isoTime,
    days_remaining: count,
    auto_renewal: z.boolean(),
    billing_cycle: z.string(),
    is_trial_period: z.boolean(),
    price_paid: pricePaid,
  })
  .meta({ id: 'Subscription' });

export const ReactivateResult = z.object({
  reactivated: z.boolean(),
  reactivation_type: z.enum(['auto_renewal_resumed', 'new_purchase']),
  subscription: SubscriptionView,
  applied_offer: z
    .object({ offer_id: z.string(), discount_percentage: z.number(), applies_to: z.string() })
    .nullable(),
  next_billing_date: isoTime.nullable(),
  unlocked_features: z.array(z.string()),
});

export const HistoryResult = z.object({
  subscription_history: z.array(
    z.object({
      subscription_id: z.string(),
      plan_name: z.string(),
      status,
      activated_at: isoTime,
      expires_at: isoTime,
      platform,
      amount_paid: z.number(),
      currency: z.string(),
      transaction_id: z.string(),
    }),
  ),
  summary: z.object({
    total_subscriptions: count,
    total_amount_paid: z.number(),
    currency: z.string(),
    average_subscription_length: z.number(),
    most_recent_status: status.nullable(),
  }),
  pagination: z.object({ current_page: count, total_pages: count, total_items: count }),
});

export const FeatureAccessResult = z.object({
  feature_id: z.string(),
  has_access: z.boolean(),
  access_reason: z.string(),
  subscription_info: z.object({
    required_plan: z.string().nullable(),
    upgrade_url: z.string(),
    current_status: z.string().meta({ description: 'active, expired, cancelled, pending or none' }),
  }),
  alternative_actions: z.array(z.string()),
});

const accessType = z.string().meta({ description: 'unlimited or limited' });
const limits = {
  access_type: accessType,
  daily_limit: count.nullable(),
  used_today: count,
  remaining_today: count.nullable(),
  resets_at: isoTime,
};
export const PracticeResult = z.object({ practice_counted: z.boolean(), ...limits });
export const UsageResult = z.object({ ...limits, dialogues_this_month: count });
export const AdvancedResult = z.object({
  scenarios: z.array(z.object({ scenario_id: z.string(), title: z.string(), level: z.string() })),
  access_type: accessType,
});

export const AdminSubscription = SubscriptionView.extend({
  platform,
  verifier: z.enum(['apple', 'google', 'sandbox', 'admin']),
  original_transaction_id: z.string(),
  latest_transaction_id: z.string(),
  cancelled_at: isoTime.nullable(),
  cancellation_reason: z.string().nullable(),
  refunded_at: isoTime.nullable(),
  created_at: isoTime,
  updated_at: isoTime,
}).meta({ id: 'AdminSubscription' });

export const AdminList = z.object({
  subscriptions: z.array(AdminSubscription),
  pagination: z.object({
    current_page: count,
    total_pages: count,
    total_items: count,
    items_per_page: count,
  }),
});

export const StoreNotificationResult = z.object({ received: z.literal(true), outcome: z.string() });
