// V8 settings first, then telemetry: the SDK must run before anything creates spans.
import './v8-flags';
import '@lingua/telemetry/register';
import { createLogger } from '@lingua/logger';
import { loadGatewayConfig } from './config';
import { startGateway } from './server';

async function main() {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', { level: config.LOG_LEVEL });
  const gateway = await startGateway(config, { logger }).catch((err) => {
    logger.fatal({ err }, 'gateway failed to start');
    process.exit(1);
  });
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    gateway.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

void main();
