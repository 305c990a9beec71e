import { FIRST_SEND_WINDOW_MS, maySendFirst } from './fan-out-event.use-case';
import { isSubscriber, type WebhookEndpoint } from './webhook';

const now = new Date('2026-11-22T12:00:00Z');
const endpoint = (over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: 'ep_1',
  ownerId: 'u-1',
  url: 'https://example.com/hook',
  description: '',
  events: ['user.created'],
  scope: 'own',
  secrets: [],
  enabled: true,
  disabledReason: null,
  consecutiveFailures: 0,
  circuitOpenUntil: null,
  failingSince: null,
  createdAt: now,
  updatedAt: now,
  ...over,
});
const sentAgo = (ms: number) => ({ timestamp: new Date(now.getTime() - ms).toISOString() });

describe('who receives an event', () => {
  it('When an event is about an account, Then its own endpoints and every scope-all endpoint subscribed to it receive it, enabled ones only', () => {
    expect(isSubscriber(endpoint(), 'user.created', 'u-1')).toBe(true);
    expect(isSubscriber(endpoint(), 'user.created', 'u-2')).toBe(false);
    expect(isSubscriber(endpoint(), 'user.created', null)).toBe(false);
    expect(isSubscriber(endpoint({ scope: 'all' }), 'user.created', 'u-2')).toBe(true);
    expect(isSubscriber(endpoint({ scope: 'all' }), 'user.created', null)).toBe(true);
    expect(isSubscriber(endpoint(), 'achievement.unlocked', 'u-1')).toBe(false);
    expect(isSubscriber(endpoint({ enabled: false }), 'user.created', 'u-1')).toBe(false);
  });
});

describe('first attempt sent before the delivery is stored', () => {
  it('When the endpoint is healthy and the event recent, Then it may be sent at once', () => {
    expect(maySendFirst(endpoint(), sentAgo(50), now)).toBe(true);
    expect(maySendFirst(endpoint(), sentAgo(FIRST_SEND_WINDOW_MS - 1), now)).toBe(true);
  });

  it('When the endpoint failed since its last success or its circuit is set, Then it takes the queue (circuit breaker)', () => {
    expect(maySendFirst(endpoint({ consecutiveFailures: 1 }), sentAgo(50), now)).toBe(false);
    expect(maySendFirst(endpoint({ circuitOpenUntil: new Date(now.getTime() - 1) }), sentAgo(50), now)).toBe(
      false,
    );
  });

  it('When the event is older than the window, or dated far ahead, Then it takes the queue', () => {
    expect(maySendFirst(endpoint(), sentAgo(FIRST_SEND_WINDOW_MS), now)).toBe(false);
    expect(maySendFirst(endpoint(), sentAgo(-FIRST_SEND_WINDOW_MS), now)).toBe(false);
    expect(maySendFirst(endpoint(), sentAgo(-1_000), now)).toBe(true); // a little clock skew
  });
});
