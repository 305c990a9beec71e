import { z } from 'zod';

const Feature = z.object({ feature_id: z.string(), name: z.string(), description: z.string() });

export const Plan = z.object({
  plan_id: z.string().min(1),
  product_id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  pricing: z.object({
    regular_price: z.object({ amount: z.number().int().min(0), currency: z.string(), display: z.string() }),
    test_period_discount: z.object({
      percentage: z.number().int().min(0).max(100),
      discounted_amount: z.number().int().min(0),
      currency: z.string(),
      display: z.string(),
      description: z.string(),
      valid_until: z.iso.datetime({ offset: true }),
    }),
  }),
  billing_cycle: z.literal('monthly'),
  /** Length of one paid period when the store does not say (sandbox receipts, admin grants). */
  billing_period_days: z.number().int().positive(),
  trial_period: z.object({ duration_days: z.number().int().min(0), available: z.boolean() }),
  features: z.array(Feature),
  platform_config: z.object({
    ios: z.object({ product_id: z.string(), app_store_id: z.string() }),
    android: z.object({ sku: z.string(), billing_key: z.string() }),
  }),
});
export type Plan = z.infer<typeof Plan>;

export const Offer = z.object({
  offer_id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  discount_type: z.enum(['free_trial', 'percentage']),
  trial_duration_days: z.number().int().min(0),
  discount_percentage: z.number().int().min(0).max(100),
  applicable_plans: z.array(z.string()),
  eligibility: z.object({
    new_users_only: z.boolean(),
    device_restriction: z.boolean(),
    geographic_restriction: z.array(z.string()),
  }),
  verification_required: z.string(),
  valid_until: z.iso.datetime({ offset: true }),
  /** Offered when a subscriber cancels (spec: retention_offer), not listed among the offers. */
  retention: z.boolean().default(false),
});
export type Offer = z.infer<typeof Offer>;

/** The plans/offers configuration file (config/catalogue.json): products are data, not code. */
export const Catalogue = z.object({
  plans: z.array(Plan).min(1),
  offers: z.array(Offer),
  subscription_triggers: z.array(
    z.object({ trigger_id: z.string(), description: z.string(), timing: z.string() }),
  ),
  advanced_scenarios: z.array(z.object({ scenario_id: z.string(), title: z.string(), level: z.string() })),
});
export type Catalogue = z.infer<typeof Catalogue>;

/** The plan sold under a store product id (the plan's, the iOS product id or the Android SKU). */
export function planForProduct(catalogue: Catalogue, productId: string): Plan | undefined {
  return catalogue.plans.find(
    (p) =>
      p.product_id === productId ||
      p.platform_config.ios.product_id === productId ||
      p.platform_config.android.sku === productId,
  );
}

export const planById = (catalogue: Catalogue, planId: string) =>
  catalogue.plans.find((p) => p.plan_id === planId);

export const retentionOffer = (catalogue: Catalogue, now: Date) =>
  catalogue.offers.find((o) => o.retention && new Date(o.valid_until) > now);
