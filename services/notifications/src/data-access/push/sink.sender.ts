import type { PushMessage, PushOutcome } from '../../domain/push-sender';

/**
 * Development only: each push goes as JSON to the local push sink (deploy/local/push-sink.js, run
 * by `npm start`), which prints it, so reminders can be seen without Apple or Google credentials.
 */
export function sinkPushSender(settings: { url: string; timeoutMs: number }) {
  return {
    async send(message: PushMessage): Promise<PushOutcome> {
      try {
        const res = await fetch(settings.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(message),
          signal: AbortSignal.timeout(settings.timeoutMs),
        });
        await res.body?.cancel();
        return res.ok ? { outcome: 'sent' } : { outcome: 'retry', reason: `sink answered ${res.status}` };
      } catch (err) {
        return { outcome: 'retry', reason: `push sink: ${(err as Error).message}` };
      }
    },
    close() {},
  };
}
