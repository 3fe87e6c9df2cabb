import { CounterProposal, SignedRecord, type RecordStatus, type RecordType, type SigningOrder } from '../../src/domain/records/entities.js';
import type { ExecutionView } from '../../src/domain/ceremonies/execution-view.js';
import type { Domain, Person } from './domain.js';

/**
 * Records brought to a stage of their lifecycle by the domain services themselves (no HTTP): the
 * factories of the service-level tests. Each stage is reached by the moves a person would make.
 */

export const BODY = 'We agree to share the garden equally and to take turns watering it every week.';
export const NEW_TERMS = 'We agree to share the garden equally and to water it every other evening.';

/** A record's type, people and settings; parties and witnesses sign in list order. */
export type Shape = {
  type?: RecordType;
  parties?: readonly Person[];
  witnesses?: readonly Person[];
  teamId?: string | null;
  signingOrder?: SigningOrder;
  requiredSignatureMethodCount?: number;
  onChainIncludeVerifiedParties?: boolean;
};

const named = (person: Person) => ({ displayName: person.name, contactPointValue: person.email });

/** A new draft of `initiator`'s; returns its id. */
export async function draft(d: Domain, initiator: Person, shape: Shape = {}): Promise<string> {
  const record = await d.services.records.create(
    initiator.principal,
    {
      type: shape.type ?? 'agreement',
      title: 'Garden sharing',
      body: BODY,
      parties: shape.type === 'declaration' ? undefined : (shape.parties ?? []).map(named),
      witnesses: (shape.witnesses ?? []).map(named),
      onChainFullText: false,
      onChainIncludeVerifiedParties: shape.onChainIncludeVerifiedParties ?? false,
      requiredSignatureMethodCount: shape.requiredSignatureMethodCount,
      signingOrder: shape.signingOrder,
      teamId: shape.teamId,
    },
    'graphql',
  );
  return record.id;
}

/** The newest code mailed to `person` (each test signs as one person at a time: it is the one just asked for). */
export async function newestCode(d: Domain, person: Person): Promise<string> {
  const code = (await d.deliverMail())
    .filter((m) => m.to === person.email)
    .map((m) => /code is (\d{6})/.exec(m.text)?.[1])
    .findLast((found) => found !== undefined);
  if (!code) throw new Error(`no code for ${person.email}`);
  return code;
}

/**
 * The email_otp ceremony up to finalizing: the execution's view after it. Starting the method starts
 * the execution (signature-ceremony.test.ts shows both ways agree).
 */
export async function satisfy(d: Domain, person: Person, id: string): Promise<ExecutionView> {
  const { ceremonies } = d.services;
  await ceremonies.startMethod(person.principal, id, 'email_otp', {});
  return ceremonies.submitMethod(person.principal, id, 'email_otp', { code: await newestCode(d, person) });
}

/** The email_otp ceremony, then finalize. */
export async function sign(d: Domain, person: Person, id: string): Promise<void> {
  await satisfy(d, person, id);
  await d.services.ceremonies.finalize(person.principal, id, { acknowledgePublicVerifiedParties: true });
}

/** Signed by the initiator and submitted. */
export async function submitted(d: Domain, initiator: Person, shape: Shape = {}): Promise<string> {
  const id = await draft(d, initiator, shape);
  await sign(d, initiator, id);
  await d.services.lifecycle.submit(initiator.principal, id);
  return id;
}

/** The records' lapse has passed (their `expires_at` is set just behind the clock); the sweep runs. */
export async function lapse(d: Domain, ...ids: string[]): Promise<number> {
  const past = new Date(d.clock.now().getTime() - 1000);
  await d.orm.em.fork().transactional((em) => em.nativeUpdate(SignedRecord, { id: { $in: ids } }, { expiresAt: past }));
  return d.services.lifecycle.expireDue();
}

/** The record's status as stored. */
export async function statusOf(d: Domain, id: string): Promise<RecordStatus> {
  return (await d.orm.em.fork().findOneOrFail(SignedRecord, id)).status;
}

/** The record's newest counter-proposal, if any. */
async function newestCounter(d: Domain, id: string): Promise<CounterProposal | null> {
  return d.orm.em.fork().findOne(CounterProposal, { record: id }, { orderBy: { createdAt: 'desc' }, populate: ['proposedBy'] });
}

/**
 * The people of the standard record: a witnessed agreement of a team, initiated by a member of it,
 * with one party and one witness from outside; an admin of the team who takes no part; a stranger.
 */
export type Cast = { initiator: Person; party: Person; witness: Person; admin: Person; stranger: Person; teamId: string };

export async function newCast(d: Domain): Promise<Cast> {
  const [initiator, party, witness, admin, stranger] = await Promise.all(['Alice', 'Bob', 'Carol', 'Tess', 'Mallory'].map((name) => d.person(name)));
  const teamId = await d.team([
    [admin!, 'admin'],
    [initiator!, 'member'],
  ]);
  return { initiator: initiator!, party: party!, witness: witness!, admin: admin!, stranger: stranger!, teamId };
}

/** The standard record's shape for a cast. */
const castShape = (cast: Cast): Shape => ({ type: 'witnessed_agreement', parties: [cast.party], witnesses: [cast.witness], teamId: cast.teamId });

/** How each stage is reached from the one before it, and the status it is in. */
const STAGES = {
  draft: { status: 'draft', build: async (d, cast) => draft(d, cast.initiator, castShape(cast)) },
  signed_draft: { status: 'draft', after: 'draft', build: async (d, cast, id) => sign(d, cast.initiator, id) },
  pending_confirmation: { status: 'pending_confirmation', after: 'signed_draft', build: async (d, cast, id) => void (await d.services.lifecycle.submit(cast.initiator.principal, id)) },
  partly_signed: { status: 'pending_confirmation', after: 'pending_confirmation', build: async (d, cast, id) => sign(d, cast.party, id) },
  counter_under_review: {
    status: 'counter_under_review',
    after: 'pending_confirmation',
    build: async (d, cast, id) => void (await d.services.counters.submit(cast.party.principal, id, { proposedBody: NEW_TERMS })),
  },
  sealed: {
    status: 'sealed',
    after: 'partly_signed',
    build: async (d, cast, id) => sign(d, cast.witness, id),
  },
  superseded: {
    status: 'superseded',
    after: 'sealed',
    build: async (d, cast, id) => {
      const amendment = await d.services.amendments.amend(cast.initiator.principal, id, { body: NEW_TERMS });
      await sign(d, cast.initiator, amendment);
      await d.services.lifecycle.submit(cast.initiator.principal, amendment);
      await sign(d, cast.party, amendment);
      await sign(d, cast.witness, amendment);
    },
  },
  cancelled_draft: { status: 'cancelled_draft', after: 'draft', build: async (d, cast, id) => void (await d.services.amendments.cancel(cast.initiator.principal, id, {})) },
  declined: { status: 'declined', after: 'pending_confirmation', build: async (d, cast, id) => void (await d.services.lifecycle.decline(cast.party.principal, id, 'Not for me')) },
  expired: { status: 'expired', after: 'pending_confirmation', build: async (d, _cast, id) => void (await lapse(d, id)) },
  rescinded: { status: 'rescinded', after: 'pending_confirmation', build: async (d, cast, id) => void (await d.services.lifecycle.rescind(cast.initiator.principal, id)) },
  // The counter stays pending when its record ends under review (the lifecycle tests ask what it may do then).
  rescinded_in_review: { status: 'rescinded', after: 'counter_under_review', build: async (d, cast, id) => void (await d.services.lifecycle.rescind(cast.initiator.principal, id)) },
  expired_in_review: { status: 'expired', after: 'counter_under_review', build: async (d, _cast, id) => void (await lapse(d, id)) },
} as const satisfies Record<string, { status: RecordStatus; after?: string; build: (d: Domain, cast: Cast, id: string) => Promise<unknown> }>;

export type Stage = keyof typeof STAGES;
export const STAGE_NAMES = Object.keys(STAGES) as Stage[];
export const stageStatus = (stage: Stage): RecordStatus => STAGES[stage].status;

/** A standard record of `cast` at `stage`, with its pending counter-proposal when it has one. */
export type Staged = { id: string; stage: Stage; status: RecordStatus; counterId: string | null };

export async function recordAt(d: Domain, cast: Cast, stage: Stage): Promise<Staged> {
  const path: Stage[] = [];
  for (let at: Stage | undefined = stage; at; at = (STAGES[at] as { after?: Stage }).after) path.unshift(at);
  const [first, ...rest] = path;
  const id = await STAGES[first!].build(d, cast, '');
  for (const next of rest) await STAGES[next].build(d, cast, id as string);
  const status = await statusOf(d, id as string);
  if (status !== STAGES[stage].status) throw new Error(`stage ${stage}: the record is ${status}, not ${STAGES[stage].status}`);
  const counter = await newestCounter(d, id as string);
  return { id: id as string, stage, status, counterId: counter?.status === 'pending' ? counter.id : null };
}
