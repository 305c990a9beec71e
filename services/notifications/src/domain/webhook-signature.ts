import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EndpointSecret } from './webhook';

/** A new endpoint secret in the Standard Webhooks form. */
export const newEndpointSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** Secrets that still sign at `now`: the current one, and a rotated one until it expires. */
export const activeSecrets = (secrets: EndpointSecret[], now: Date) =>
  secrets.filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime());

/**
 * The Standard Webhooks headers for one attempt: the signature covers `id.timestamp.body` for the
 * exact bytes sent, once per active secret (space-separated), so a receiver mid-rotation verifies with either.
 */
export function signedHeaders(webhookId: string, at: Date, body: string, secrets: EndpointSecret[]) {
  const signature = activeSecrets(secrets, at)
    .map((s) => new Webhook(s.secret).sign(webhookId, at, body))
    .join(' ');
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/**
 * The payload of the spec, `{event, timestamp, data, signature}`, serialised once. A body cannot
 * carry a signature of itself, so `signature` signs the event's content (`<webhook-id>.<event time in
 * seconds>.<data as JSON>`, Standard Webhooks form, current secret) and stays the same on every retry;
 * the `webhook-signature` header, over the whole body, is the one receivers should verify.
 */
export function webhookBody(
  webhookId: string,
  event: { event: string; timestamp: string; data: unknown },
  secret: string,
): string {
  const dataJson = JSON.stringify(event.data ?? null);
  const signature = new Webhook(secret).sign(webhookId, new Date(event.timestamp), dataJson);
  return JSON.stringify({
    event: event.event,
    timestamp: event.timestamp,
    data: event.data ?? null,
    signature,
  });
}
