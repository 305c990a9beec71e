import type { Connection } from 'mongoose';
import {
  registerWebhookState,
  secondsSince,
  webhookAttemptDuration,
  webhookDeliveries,
} from '@lingua/metrics';
import type { WebhookSender } from '../domain/attempt-delivery.use-case';
import { isSuccessStatus } from '../domain/retry-policy';

/** The sender, counting each POST by outcome and timing it (lingua_webhook_*). */
export function measuredSender<S extends WebhookSender>(sender: S): S {
  return {
    ...sender,
    async send(url, headers, body) {
      const started = process.hrtime.bigint();
      const result = await sender.send(url, headers, body);
      const outcome =
        result.statusCode === null
          ? 'network_error'
          : isSuccessStatus(result.statusCode)
            ? 'delivered'
            : 'http_error';
      webhookDeliveries.inc({ outcome });
      webhookAttemptDuration.observe({ outcome }, secondsSince(started));
      return result;
    },
  };
}

/**
 * Open circuits and queued retries, counted in the database when Prometheus scrapes, at most every
 * `cacheMs` (every replica reports the same totals; dashboards take max, not sum).
 */
export function registerWebhookGauges(connection: Connection, cacheMs = 10_000): () => void {
  const endpoints = connection.collection('webhook_endpoints');
  const deliveries = connection.collection('webhook_deliveries');
  let last: { at: number; value: Promise<{ circuitsOpen: number; retriesQueued: number }> } | undefined;
  return registerWebhookState(() => {
    const now = Date.now();
    if (!last || now - last.at > cacheMs) {
      const value = Promise.all([
        endpoints.countDocuments({ enabled: true, circuitOpenUntil: { $gt: new Date(now) } }),
        deliveries.countDocuments({ status: 'pending', attempts: { $gt: 0 } }),
      ]).then(([circuitsOpen, retriesQueued]) => ({ circuitsOpen, retriesQueued }));
      value.catch(() => (last = undefined));
      last = { at: now, value };
    }
    return last.value;
  });
}
