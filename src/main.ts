import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { startApp } from './app.js';

try {
  const config = loadConfig();
  const app = await startApp(config);
  const shutdown = (signal: string) => {
    app.logger.info({ signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        app.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
