import { createHash, randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/postgresql';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { DomainError } from '../../shared/errors.js';
import { PasskeyCredential, type MethodStep } from '../entities.js';
import type { MethodContext, MethodOutcome, SignatureMethodAdapter } from './method.js';

/** @simplewebauthn/server, loaded at the first passkey step (a service whose signers never use one never loads it). */
const webauthn = () => import('@simplewebauthn/server');

export type WebAuthnSettings = { rpId: string; rpName: string; origin: string };

type Ceremony = 'registration' | 'assertion';

const b64url = z.string().min(1).max(16_384).regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');

/** Private method state: the one outstanding challenge, and challenges already used or superseded. */
const stateSchema = z.object({
  pending: z
    .object({ ceremony: z.enum(['registration', 'assertion']), challenge: z.string(), nonce: z.string(), issuedAt: z.string() })
    .nullable()
    .default(null),
  used: z.array(z.string()).default([]),
});
type PasskeyState = z.infer<typeof stateSchema>;
type PendingChallenge = NonNullable<PasskeyState['pending']>;

const credentialBase = {
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};
const registrationSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: b64url,
    attestationObject: b64url,
    authenticatorData: b64url.optional(),
    transports: z.array(z.string().max(32)).max(8).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url.optional(),
  }),
});
const assertionSchema = z.object({
  ...credentialBase,
  response: z.object({ clientDataJSON: b64url, authenticatorData: b64url, signature: b64url, userHandle: b64url.optional() }),
});
const clientDataSchema = z.object({ type: z.string(), challenge: z.string(), origin: z.string() });

/** How many used challenges a method remembers to answer replays with `challenge_replayed`. */
const REMEMBERED_CHALLENGES = 20;

const invalid = (message: string, type: string) => DomainError.invalid(['credential'], message, type);

/**
 * A passkey (WebAuthn) assertion over a challenge bound to this record version and participant.
 * A signer without a passkey first registers one; registration only proves possession, so an
 * assertion always follows and is what signs. Each challenge answers once.
 */
export class WebAuthnPasskeyMethod implements SignatureMethodAdapter {
  readonly type = 'webauthn_passkey' as const;

  constructor(
    private readonly settings: WebAuthnSettings,
    private readonly challengeTtlSeconds = 300,
  ) {}

  async start(context: MethodContext): Promise<MethodOutcome> {
    const credentials = await this.credentialsOf(context);
    return this.issue(context, credentials.length === 0 ? 'registration' : 'assertion', credentials);
  }

  async submit(context: MethodContext, input: Record<string, unknown>): Promise<MethodOutcome> {
    const state = readState(context.method.state);
    const pending = state.pending;
    if (context.method.status !== 'pending' || !pending) {
      throw new DomainError('conflict', 'Start the webauthn_passkey method before submitting a credential');
    }
    const credential = input.credential;
    if (credential === null || typeof credential !== 'object' || Array.isArray(credential)) {
      throw invalid('Submit the authenticator response as {"credential": {...}}', 'webauthn_invalid');
    }
    const clientData = decodeClientData(credential);
    if (state.used.includes(clientData.challenge)) throw invalid('This passkey response was already used or its challenge was replaced', 'challenge_replayed');
    if (clientData.challenge !== pending.challenge || bindChallenge(pending.ceremony, pending.nonce, context) !== pending.challenge) {
      throw invalid('This passkey response answers another challenge (another record, version or step)', 'challenge_mismatch');
    }
    if (context.now.getTime() - Date.parse(pending.issuedAt) > this.challengeTtlSeconds * 1000) {
      throw invalid('The passkey challenge expired: start the method again', 'challenge_expired');
    }
    if (clientData.origin !== this.settings.origin) throw invalid('The passkey response was made for another origin', 'webauthn_invalid');
    return pending.ceremony === 'registration'
      ? this.register(context, state, pending, credential)
      : this.assert(context, state, pending, credential);
  }

  /** Verifies a registration, stores the passkey, then asks for the assertion that signs. */
  private async register(context: MethodContext, state: PasskeyState, pending: PendingChallenge, input: object): Promise<MethodOutcome> {
    const parsed = registrationSchema.safeParse(input);
    if (!parsed.success) throw invalid(`The passkey registration is malformed: ${describe(parsed.error)}`, 'webauthn_invalid');
    const response: RegistrationResponseJSON = { ...parsed.data, clientExtensionResults: {} };
    const verification = await verifyOrInvalid(async () =>
      (await webauthn()).verifyRegistrationResponse({
        response,
        expectedChallenge: pending.challenge,
        expectedOrigin: this.settings.origin,
        expectedRPID: this.settings.rpId,
        requireUserVerification: false,
      }),
    );
    if (!verification.verified) throw invalid('The passkey registration could not be verified', 'webauthn_invalid');
    const registered = verification.registrationInfo.credential;
    const { em, principal, now } = context;
    if ((await em.count(PasskeyCredential, { credentialId: registered.id })) > 0) {
      throw invalid('This passkey is already registered', 'credential_already_registered');
    }
    const existing = await this.credentialsOf(context);
    const stored = em.create(PasskeyCredential, {
      identityId: principal.identityId,
      credentialId: registered.id,
      publicKey: Buffer.from(registered.publicKey).toString('base64url'),
      counter: registered.counter,
      transports: registered.transports ?? response.response.transports ?? [],
      createdAt: now,
    });
    return this.issue(context, 'assertion', [...existing, stored], state);
  }

  /** Verifies an assertion with the stored passkey; the signature is satisfied and the challenge spent. */
  private async assert(context: MethodContext, state: PasskeyState, pending: PendingChallenge, input: object): Promise<MethodOutcome> {
    const parsed = assertionSchema.safeParse(input);
    if (!parsed.success) throw invalid(`The passkey assertion is malformed: ${describe(parsed.error)}`, 'webauthn_invalid');
    const response: AuthenticationResponseJSON = { ...parsed.data, clientExtensionResults: {} };
    const { em, principal, record, execution, participant, now } = context;
    // Locked: concurrent signatures with one passkey must see each other's counter.
    const stored = await em.findOne(
      PasskeyCredential,
      { credentialId: response.id, identityId: principal.identityId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!stored) throw invalid('This passkey is not registered to your account', 'credential_unknown');
    if (response.response.userHandle !== undefined && response.response.userHandle !== userHandle(principal.identityId)) {
      throw invalid('This passkey belongs to another account', 'webauthn_invalid');
    }
    // The column is bigint: read it as a number whatever the driver hands back.
    const storedCounter = Number(stored.counter);
    const presented = signCount(response.response.authenticatorData);
    if (presented === null) throw invalid('The passkey assertion is malformed: authenticatorData is too short', 'webauthn_invalid');
    if ((presented > 0 || storedCounter > 0) && presented <= storedCounter) {
      throw invalid('The passkey signature counter went backwards: the authenticator may be cloned', 'counter_regression');
    }
    const verification = await verifyOrInvalid(async () =>
      (await webauthn()).verifyAuthenticationResponse({
        response,
        expectedChallenge: pending.challenge,
        expectedOrigin: this.settings.origin,
        expectedRPID: this.settings.rpId,
        credential: { id: stored.credentialId, publicKey: new Uint8Array(Buffer.from(stored.publicKey, 'base64url')), counter: storedCounter, transports: stored.transports },
        requireUserVerification: false,
      }),
    );
    // A tampered signature still reports a new counter: only `verified` counts.
    if (!verification.verified) throw invalid('The passkey signature could not be verified', 'webauthn_invalid');
    const { newCounter, userVerified } = verification.authenticationInfo;
    stored.counter = newCounter;
    stored.lastUsedAt = now;
    return {
      status: 'satisfied',
      evidence: [
        'webauthn_passkey',
        `credential=${stored.credentialId}`,
        `counter=${newCounter}`,
        `user_verified=${userVerified}`,
        `challenge=${pending.challenge}`,
        `nonce=${pending.nonce}`,
        `record=${record.id}`,
        `version=${execution.recordVersion}`,
        `participant=${participant.id}`,
      ].join('|'),
      step: null,
      state: { pending: null, used: remember(state.used, pending.challenge) },
    };
  }

  /** A fresh challenge for `ceremony`; an outstanding one is superseded and can no longer answer. */
  private async issue(context: MethodContext, ceremony: Ceremony, credentials: PasskeyCredential[], state = readState(context.method.state)): Promise<MethodOutcome> {
    const { record, execution, participant, principal, now } = context;
    const nonce = randomBytes(32).toString('base64url');
    const challenge = new Uint8Array(Buffer.from(bindChallenge(ceremony, nonce, context), 'base64url'));
    const known = credentials.map((c) => ({ id: c.credentialId, transports: c.transports }));
    const timeout = this.challengeTtlSeconds * 1000;
    const options =
      ceremony === 'registration'
        ? await (await webauthn()).generateRegistrationOptions({
            rpName: this.settings.rpName,
            rpID: this.settings.rpId,
            userID: new Uint8Array(Buffer.from(userHandle(principal.identityId), 'base64url')),
            userName: participant.contactPointValue ?? participant.displayName ?? principal.identityId,
            userDisplayName: participant.displayName ?? '',
            challenge,
            timeout,
            attestationType: 'none',
            excludeCredentials: known,
            authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
          })
        : await (await webauthn()).generateAuthenticationOptions({ rpID: this.settings.rpId, allowCredentials: known, challenge, timeout, userVerification: 'preferred' });
    const step: MethodStep = {
      prompt:
        ceremony === 'registration'
          ? `Create a passkey for your account: pass the options in "challenge" to navigator.credentials.create() and submit the result as {"credential": ...}. Then confirm ${record.reference} version ${execution.recordVersion} with it.`
          : `Confirm with your passkey to sign ${record.reference} version ${execution.recordVersion}: pass the options in "challenge" to navigator.credentials.get() and submit the result as {"credential": ...}. The challenge answers once.`,
      proofText: null,
      proofTitle: null,
      url: null,
      challenge: JSON.stringify(options),
    };
    const used = state.pending ? remember(state.used, state.pending.challenge) : state.used;
    const pending: PendingChallenge = { ceremony, challenge: options.challenge, nonce, issuedAt: now.toISOString() };
    return { status: 'pending', step, state: { pending, used } };
  }

  private credentialsOf({ em, principal }: MethodContext): Promise<PasskeyCredential[]> {
    return em.find(PasskeyCredential, { identityId: principal.identityId }, { orderBy: { createdAt: 'asc' } });
  }
}

/**
 * The challenge commits to the record, its version and the participant (plus a fresh nonce), so a
 * response made for one version can never sign another; the evidence keeps the nonce to re-derive it.
 */
function bindChallenge(ceremony: Ceremony, nonce: string, { record, execution, participant }: MethodContext): string {
  return createHash('sha256')
    .update(['webauthn_passkey', ceremony, nonce, record.id, String(execution.recordVersion), participant.id].join('|'))
    .digest('base64url');
}

/** The WebAuthn user handle of an identity: its UUID's 16 bytes, base64url. */
function userHandle(identityId: string): string {
  return Buffer.from(identityId.replace(/-/g, ''), 'hex').toString('base64url');
}

function readState(state: Record<string, unknown>): PasskeyState {
  const parsed = stateSchema.safeParse(state);
  return parsed.success ? parsed.data : { pending: null, used: [] };
}

function remember(used: string[], challenge: string): string[] {
  return [...used.filter((c) => c !== challenge), challenge].slice(-REMEMBERED_CHALLENGES);
}

function decodeClientData(credential: object): z.infer<typeof clientDataSchema> {
  const response: unknown = 'response' in credential ? credential.response : undefined;
  const encoded = response && typeof response === 'object' && 'clientDataJSON' in response ? response.clientDataJSON : undefined;
  const raw = b64url.safeParse(encoded);
  if (!raw.success) throw invalid('The passkey response has no clientDataJSON', 'webauthn_invalid');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw.data, 'base64url').toString('utf8'));
  } catch {
    throw invalid('The passkey clientDataJSON is not JSON', 'webauthn_invalid');
  }
  const clientData = clientDataSchema.safeParse(json);
  if (!clientData.success) throw invalid('The passkey clientDataJSON lacks type, challenge or origin', 'webauthn_invalid');
  return clientData.data;
}

/** The signature counter of authenticator data (bytes 33..36), or null when the data is too short. */
function signCount(authenticatorData: string): number | null {
  const bytes = Buffer.from(authenticatorData, 'base64url');
  return bytes.length >= 37 ? bytes.readUInt32BE(33) : null;
}

/** The library throws on any mismatch; those are bad input (422), never server errors. */
async function verifyOrInvalid<T>(verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch {
    throw invalid('The passkey response could not be verified', 'webauthn_invalid');
  }
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'credential'} ${issue.message}` : 'invalid';
}
