#!/usr/bin/env node
/**
 * ops: the operator's view of the work waiting in the service's database, and a nudge for one record.
 *
 *   npm run ops -- status [--json] [--limit <n>]
 *   npm run ops -- retry <agr_reference> [--json]
 *   npm run ops -- migrate [--json]                  (in the image: record-ops migrate)
 *
 * It reads the environment as the service does (DATABASE_URL, the STUCK_* thresholds, CHAIN_RPC_URL,
 * MONGODB_URL) and needs no running instance to read; what `retry` enqueues, a running instance with
 * jobs on does. Exit codes: see `EXIT`.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { migrate, openDatabase } from '../infrastructure/database.js';
import { readBacklog } from '../domain/maintenance/backlog.js';
import { StuckWork } from '../domain/maintenance/stuck-work.js';
import { WorkRetry } from '../domain/maintenance/work-retry.js';
import { systemClock } from '../domain/shared/clock.js';
import { enqueueSealArtifacts } from '../jobs/seal-artifacts.job.js';
import { createQueue } from '../jobs/queue.js';
import { createLogger } from '../logger.js';
import { backlogJson, renderBacklog } from './render.js';

export const USAGE = `usage:
  npm run ops -- status [--json] [--limit <n>]   the backlog: seals waiting for artifacts, anchors, mail, webhooks, outbox
  npm run ops -- retry <agr_reference> [--json]  re-enqueue a sealed record's missing artifacts, or its anchoring
  npm run ops -- migrate [--json]                apply pending migrations and exit (a deployment's job; then MIGRATE_ON_START=false)`;

/** 0 done; 1 the database (or the job queue) failed; 2 wrong usage or configuration; 3 no such record; 4 nothing to retry. */
export const EXIT = { ok: 0, failed: 1, usage: 2, unknownRecord: 3, nothingToRetry: 4 } as const;

export type Io = { out: (text: string) => void; err: (text: string) => void };

const stdio: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** Runs the tool; resolves to the exit code. */
export async function main(argv: string[], io: Io = stdio, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, limit: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    });
  } catch (error) {
    io.err(`ops: ${(error as Error).message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    io.out(`${USAGE}\n`);
    return EXIT.ok;
  }
  const usage = (message: string) => {
    io.err(`ops: ${message}\n${USAGE}\n`);
    return EXIT.usage;
  };
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) return usage('--limit must be a whole number from 1 to 10000');
  if (command === 'status' && rest.length > 0) return usage('status takes no reference');
  if (command === 'retry' && rest.length !== 1) return usage('retry needs one agr_reference (e.g. AGR-7K3M-9QXD)');
  if (command === 'migrate' && rest.length > 0) return usage('migrate takes no argument');
  if (command !== 'status' && command !== 'retry' && command !== 'migrate') return usage(command ? `unknown command ${command}` : 'give a command');

  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`ops: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  if (command === 'migrate') return await migrateNow(config, io, values.json);
  let orm: MikroORM;
  try {
    orm = await openDatabase({ url: config.databaseUrl, poolMax: 2, behindPooler: config.databaseBehindPooler, ...config.databaseTimeouts });
  } catch (error) {
    io.err(`ops: cannot open the database: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
  try {
    const stuckWork = new StuckWork({ orm, clock: systemClock, settings: { ...config.stuckWork, anchoring: config.chain !== null } });
    if (command === 'status') {
      const backlog = await readBacklog(orm, stuckWork, limit);
      io.out(values.json ? `${JSON.stringify(backlogJson(backlog), null, 2)}\n` : renderBacklog(backlog));
      return EXIT.ok;
    }
    return await retry(rest[0]!, { orm, config, io, json: values.json });
  } catch (error) {
    // 42P01: a table is missing; the database is not the service's, or the service never started on it (migrations).
    const missingTable = (error as { code?: string }).code === '42P01';
    io.err(`ops: ${(error as Error).message}${missingTable ? ' (is DATABASE_URL the service\'s database, migrated by `migrate` or a start of the service?)' : ''}\n`);
    return EXIT.failed;
  } finally {
    await orm.close();
  }
}

/**
 * The one-shot migration, for operators who run it as a job before a rollout (the instances then start
 * with MIGRATE_ON_START=false): the pending migrations, applied as a start of the service applies them
 * (one transaction, under the migration lock, so a starting instance waits), then the exit. It goes to
 * DATABASE_DIRECT_URL when set: a pooler in transaction mode holds no session lock.
 */
async function migrateNow(config: Config, io: Io, json: boolean): Promise<number> {
  let orm: MikroORM;
  try {
    orm = await openDatabase({ url: config.databaseDirectUrl, poolMax: 2, ...config.databaseTimeouts });
  } catch (error) {
    io.err(`ops: cannot open the database: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
  try {
    const pending = (await orm.migrator.getPending()).map((migration) => migration.name);
    await migrate(orm, config.databaseDirectUrl);
    const left = await orm.migrator.getPending();
    if (left.length > 0) throw new Error(`${left.length} migrations still pending after the migration`);
    if (json) io.out(`${JSON.stringify({ applied: pending }, null, 2)}\n`);
    else io.out(pending.length === 0 ? 'migrate: the database is up to date\n' : `migrate: applied ${pending.length} migrations: ${pending.join(', ')}\n`);
    return EXIT.ok;
  } catch (error) {
    io.err(`ops: migration failed: ${(error as Error).message}\n`);
    return EXIT.failed;
  } finally {
    await orm.close();
  }
}

/**
 * Re-enqueues what a sealed record lacks, through the paths the service's own jobs take: its artifacts
 * job (the one the seal's outbox event and the sealing sweep enqueue; unique per record), and its
 * anchoring made due now (the anchoring pass, every 5 s, takes due seals).
 */
async function retry(reference: string, deps: { orm: MikroORM; config: Config; io: Io; json: boolean }): Promise<number> {
  const { orm, config, io } = deps;
  const plan = await new WorkRetry(orm, systemClock).plan(reference);
  const report = (code: number, fields: Record<string, unknown>, text: string) => {
    if (deps.json) (code === EXIT.ok ? io.out : io.err)(`${JSON.stringify({ agr_reference: plan.found ? plan.reference : reference, ...fields }, null, 2)}\n`);
    else (code === EXIT.ok ? io.out : io.err)(`${code === EXIT.ok ? '' : 'ops: '}${text}\n`);
    return code;
  };
  if (!plan.found) return report(EXIT.unknownRecord, { error: 'unknown_record' }, `no record has the reference ${reference}`);
  if (!plan.sealed) return report(EXIT.nothingToRetry, { error: 'not_sealed', status: plan.status }, `${plan.reference} is ${plan.status}, not sealed: nothing to retry`);

  const done: string[] = [];
  const notes: string[] = [];
  if (plan.artifactsMissing) {
    const logger = createLogger('warn', process.stderr);
    const queue = await createQueue({ databaseUrl: config.databaseUrl, directUrl: config.databaseDirectUrl, mongodbUrl: config.mongodbUrl, logger });
    try {
      await enqueueSealArtifacts(queue.agenda, plan.recordId);
    } finally {
      await queue.close();
    }
    done.push('artifacts');
  }
  if (plan.anchor.status === 'confirmed') notes.push('anchoring is confirmed');
  else if (!config.chain) notes.push('anchoring is off here (CHAIN_RPC_URL unset): not retried');
  else if (plan.anchor.inFlight) notes.push('its anchoring transaction is in flight: every anchoring pass sends it again');
  else if (await new WorkRetry(orm, systemClock).anchorNow(plan.recordId)) done.push('anchoring');
  else notes.push('its anchoring changed meanwhile: nothing to make due');

  if (done.length === 0) {
    return report(EXIT.nothingToRetry, { error: 'nothing_to_retry', notes }, `${plan.reference}: nothing to retry (artifacts made${notes.length ? `; ${notes.join('; ')}` : ''})`);
  }
  const said = [
    ...(done.includes('artifacts') ? ['artifacts job enqueued (an instance with jobs on takes it within its poll, 5 s)'] : []),
    ...(done.includes('anchoring') ? [`anchoring made due now (was ${plan.anchor.status}, ${plan.anchor.attempts} attempts; the next pass takes it)`] : []),
    ...notes,
  ];
  return report(EXIT.ok, { retried: done, notes }, `${plan.reference}: ${said.join('; ')}`);
}

const invokedDirectly = process.argv[1] && fs.realpathSync(process.argv[1]) === fs.realpathSync(new URL(import.meta.url).pathname);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`ops: ${(error as Error).message}\n`);
      process.exit(EXIT.failed);
    },
  );
}
