import path from 'node:path';
import { z } from 'zod';

/**
 * The environment, parsed and validated once. Every variable is documented in README.md
 * (Configuration); a bad value stops start-up with a message naming the variable.
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const seconds = z.coerce.number().int().positive();

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: z.url().optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  MIGRATE_ON_START: bool.default(true),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('Record Signing <no-reply@localhost>'),
  MAIL_OUTBOX_DIR: z.string().default('.local/outbox'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MONGODB_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URL').optional(),
  JOBS_ENABLED: bool.default(true),
  OTP_TTL_SECONDS: seconds.default(600),
  OTP_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  OTP_REQUESTS_PER_WINDOW: z.coerce.number().int().min(1).default(5),
  OTP_REQUEST_WINDOW_SECONDS: seconds.default(900),
  ACCESS_TOKEN_TTL_SECONDS: seconds.default(3600),
  DEFAULT_LAPSE_DAYS: z.coerce.number().int().min(1).max(30).default(14),
  METHOD_STARTS_PER_WINDOW: z.coerce.number().int().min(1).default(10),
});

export type Config = {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string;
  databasePoolMax: number;
  migrateOnStart: boolean;
  smtpUrl: string | undefined;
  mailFrom: string;
  mailOutboxDir: string;
  logLevel: string;
  mongodbUrl: string | undefined;
  jobsEnabled: boolean;
  otp: { ttlSeconds: number; maxAttempts: number; requestsPerWindow: number; requestWindowSeconds: number };
  accessTokenTtlSeconds: number;
  defaultLapseDays: number;
  /** Starts of one signature method by one participant per 10 minutes. */
  methodStartsPerWindow: number;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "unset" (as in `SMTP_URL= npm start`).
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    migrateOnStart: e.MIGRATE_ON_START,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailOutboxDir: path.resolve(e.MAIL_OUTBOX_DIR),
    logLevel: e.LOG_LEVEL,
    mongodbUrl: e.MONGODB_URL,
    jobsEnabled: e.JOBS_ENABLED,
    otp: {
      ttlSeconds: e.OTP_TTL_SECONDS,
      maxAttempts: e.OTP_MAX_ATTEMPTS,
      requestsPerWindow: e.OTP_REQUESTS_PER_WINDOW,
      requestWindowSeconds: e.OTP_REQUEST_WINDOW_SECONDS,
    },
    accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
    defaultLapseDays: e.DEFAULT_LAPSE_DAYS,
    methodStartsPerWindow: e.METHOD_STARTS_PER_WINDOW,
  };
}
