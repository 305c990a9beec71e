import { serviceEnv } from '@lingua/bootstrap';
import { loadConfig } from '@lingua/config';

/** notifications: every variable it reads (see .env.example); defaults run locally with no setup. */
export const notificationsEnv = serviceEnv('notifications', { http: 3005 });

export const loadServiceConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(notificationsEnv, source);
export type NotificationsConfig = ReturnType<typeof loadServiceConfig>;
