import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';

try {
  const config = loadConfig();
  // Tracing starts before the app's modules are imported: its ESM hook must see express, pg and graphql
  // load. Without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry module is loaded at all.
  const tracing = config.tracing ? await (await import('./tracing/start.js')).startTracing(config.tracing) : null;
  const { createLogger } = await import('./logger.js');
  const logger = createLogger(config.logLevel);
  const { startApp } = await import('./app.js');
  let app: Awaited<ReturnType<typeof startApp>>;
  try {
    // PostgreSQL may still be starting beside the service: wait for it (readiness 503 meanwhile), as an orchestrator expects.
    if (config.databaseStartTimeoutSeconds > 0) await (await import('./startup.js')).waitForDatabase(config, logger);
    app = await startApp(config, { tracing: tracing?.tracing, logger });
  } catch (error) {
    // Written before the exit: the logger writes synchronously.
    logger.fatal({ err: error }, 'the service could not start');
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    // Later signals change nothing: a Ctrl-C reaches the process both from the terminal and forwarded by
    // npm and scripts/with-db.mjs, and the stop is bounded by SHUTDOWN_TIMEOUT_MS anyway.
    if (stopping) return;
    stopping = true;
    const since = Date.now();
    app.logger.info({ signal, drainMs: config.shutdown.drainMs, timeoutMs: config.shutdown.timeoutMs }, 'shutting down');
    // The last resort: whatever still runs after SHUTDOWN_TIMEOUT_MS is cut (in-flight work is handed back by its lease).
    setTimeout(() => {
      app.logger.error({ timeoutMs: config.shutdown.timeoutMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdown.timeoutMs).unref();
    app.stop().then(
      // The spans of the stop's last moments are sent before the exit (bounded by the timer above).
      async () => {
        await tracing?.shutdown().catch(() => undefined);
        // The log's record that the stop finished in time, and how long it took.
        app.logger.info({ signal, ms: Date.now() - since }, 'stopped cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        app.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
