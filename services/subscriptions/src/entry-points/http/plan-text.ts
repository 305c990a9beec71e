import { currentLanguage, formatPrice, type MessageKey, translate } from '@lingua/http';
import type { Plan } from '../../domain/catalogue';

type PlanView = Omit<Plan, 'billing_period_days'>;

/**
 * A plan as the reader reads it: its name and description from the message catalogue
 * (`plan.<plan_id>.*`, the catalogue file's English otherwise) and its prices written by `Intl` for
 * the language (amounts and currencies stay as they are).
 */
export function planInReadersLanguage(plan: PlanView): PlanView {
  if (currentLanguage() === 'en') return plan;
  const text = (field: 'name' | 'description', fallback: string) => {
    const key = `plan.${plan.plan_id}.${field}` as MessageKey;
    const translated = translate(key);
    return translated === key ? fallback : translated;
  };
  const regular = plan.pricing.regular_price;
  const discount = plan.pricing.test_period_discount;
  return {
    ...plan,
    name: text('name', plan.name),
    description: text('description', plan.description),
    pricing: {
      ...plan.pricing,
      regular_price: {
        ...regular,
        display: translate('price.per_month', { price: formatPrice(regular.amount, regular.currency) }),
      },
      test_period_discount: {
        ...discount,
        display: translate('price.first_month', {
          price: formatPrice(discount.discounted_amount, discount.currency),
        }),
      },
    },
  };
}
