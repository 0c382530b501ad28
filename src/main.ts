import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { DatabaseInUseError } from './db/database.js';
import { logger } from './logger.js';
import { startService } from './server.js';
import { startBanner } from './start-banner.js';

try {
  const config = loadConfig();
  const service = await startService(config);
  const base = config.PUBLIC_URL?.replace(/\/$/, '') ?? service.url;
  process.stdout.write(startBanner(service, base));

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  if (error instanceof ConfigError || error instanceof DatabaseInUseError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  logger.fatal({ err: error }, 'failed to start');
  process.exit(1);
}
