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
  let stopping = false;
  const shutdown = (signal: string) => {
    // one stop: a terminal's Ctrl-C and the launcher's SIGTERM both arrive (the handlers stay, so a
    // repeated signal never takes the default action and kills the process before its logs go out)
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    gateway.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
