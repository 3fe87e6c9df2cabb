import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { buildServices, stopServices, type Services } from '../../src/composition/services.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { recordVerifiedContactPoint } from '../../src/domain/identity/contact-points.js';
import { Identity } from '../../src/domain/identity/entities.js';
import { SESSION_SCOPES, type Principal } from '../../src/domain/identity/principal.js';
import type { MailMessage, Mailer } from '../../src/domain/mail/mailer.js';
import { Team, TeamMember } from '../../src/domain/teams/entities.js';
import type { TeamRole } from '../../src/domain/vocabulary.js';
import { ManualClock } from './clock.js';
import { openServiceDatabase } from './service-database.js';

/** A signed-in person: their identity, one verified email, and the session principal they call with. */
export type Person = { name: string; email: string; identityId: string; contactPointId: string; principal: Principal };

/** The mail the services hand to their transport once the mail outbox delivers it. */
class CapturedMail implements Mailer {
  readonly messages: MailMessage[] = [];

  async send(message: MailMessage): Promise<void> {
    this.messages.push(message);
  }
}

/**
 * The domain services exactly as the composition root wires them (`buildServices`), on a migrated
 * PostgreSQL database of their own, without HTTP: what a service-level test drives. Mail is captured
 * in memory once the outbox delivers it (`deliverMail`); the clock is the test's.
 */
export type Domain = {
  services: Services;
  orm: MikroORM;
  clock: ManualClock;
  /** Delivers what the mail outbox holds, and answers every message delivered so far. */
  deliverMail: () => Promise<readonly MailMessage[]>;
  /** A new person with a verified email `<name>-<n>@example.com` (unique in the database). */
  person: (name: string) => Promise<Person>;
  /** A new team whose members have these roles. */
  team: (members: readonly [Person, TeamRole][]) => Promise<string>;
  close: () => Promise<void>;
};

/** Settings a test may change (environment names, as in production). */
export async function openDomain(overrides: Record<string, string> = {}): Promise<Domain> {
  const database = await openServiceDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    JOBS_ENABLED: 'false',
    // Records lapse when a test says so (record-stages.ts `lapse`), never on their own during a run.
    DEFAULT_LAPSE_DAYS: '30',
    OTP_REQUESTS_PER_WINDOW: '100000',
    OTP_FAILURES_PER_DAY: '100000',
    CLIENT_CODE_CALLS_PER_HOUR: '100000',
    METHOD_STARTS_PER_WINDOW: '100000',
    MAIL_BACKLOG_PER_RECIPIENT: '100000',
    MAIL_BACKLOG_PER_CLIENT: '1000000',
    ...overrides,
  });
  const mail = new CapturedMail();
  const clock = new ManualClock();
  const services = await buildServices(
    config,
    // The render threads run the TypeScript sources through the same hooks as the tests' child processes.
    { mailer: mail, workerExecArgv: ['--import', new URL('./child/register.mjs', import.meta.url).href] },
    database.orm,
    createLogger('silent'),
    clock,
  );
  let count = 0;
  return {
    services,
    orm: database.orm,
    clock,
    deliverMail: async () => {
      await services.mailer.deliverDue();
      return mail.messages;
    },
    person: async (name) => {
      count += 1;
      const email = `${name.toLowerCase()}-${count}@example.com`;
      const point = await database.orm.em.fork().transactional((em) => recordVerifiedContactPoint(em, 'email', email, clock.now()));
      const principal: Principal = { kind: 'session', identityId: point.identity, scopes: SESSION_SCOPES, tokenId: randomUUID(), contactPointId: point.id };
      return { name, email, identityId: point.identity, contactPointId: point.id, principal };
    },
    team: async (members) => {
      const now = clock.now();
      return database.orm.em.fork().transactional(async (em) => {
        // As TeamService.create makes one: the team is an identity of its own and a member of itself.
        const identity = em.create(Identity, { createdAt: now });
        const team = em.create(Team, { id: identity.id, name: 'Test team', createdBy: members[0]![0].identityId, createdAt: now, updatedAt: now });
        em.create(TeamMember, { team: team.id, identity: team.id, role: 'member', createdAt: now });
        for (const [person, role] of members) em.create(TeamMember, { team: team.id, identity: person.identityId, role, email: person.email, createdAt: now });
        return team.id;
      });
    },
    close: async () => {
      await stopServices(services);
      await database.close();
    },
  };
}
