import { randomCrockford } from '../../shared/crypto.js';
import { DomainError } from '../../shared/errors.js';
import type { MethodStep } from '../entities.js';
import type { MethodContext, MethodOutcome, SignatureMethodAdapter } from './method.js';

export type MessengerSettings = {
  /** The bot the signer writes to, without the leading @. */
  botUsername: string;
  /** Deep links are `<linkBase>/<bot>?start=<challenge>`. */
  linkBase: string;
  challengeTtlSeconds?: number;
};

/** The private part of a messenger method's state; only the challenge is also shown to the signer. */
export type MessengerState = { challenge: string; expiresAt: string };

const CHALLENGE_PREFIX = 'SIGN-';
const CHALLENGE_LENGTH = 8;
const CHALLENGE = new RegExp(`${CHALLENGE_PREFIX}([0-9A-Z]{${CHALLENGE_LENGTH}})`, 'i');

/**
 * Finds a challenge in a message text (`/start SIGN-…` from the deep link, or typed by hand). Case is
 * folded and the Crockford look-alikes (O, I, L) read as the digits they stand for.
 */
export function challengeInText(text: string): string | null {
  const match = CHALLENGE.exec(text);
  if (!match?.[1]) return null;
  const code = match[1].toUpperCase().replace(/O/g, '0').replace(/[IL]/g, '1');
  return `${CHALLENGE_PREFIX}${code}`;
}

function readMessengerState(state: Record<string, unknown>): MessengerState | null {
  const { challenge, expiresAt } = state;
  return typeof challenge === 'string' && typeof expiresAt === 'string' ? { challenge, expiresAt } : null;
}

export function isExpired(state: MessengerState, now: Date): boolean {
  return new Date(state.expiresAt).getTime() <= now.getTime();
}

/**
 * The signer sends a one-time challenge to the service's bot from the messenger account named on
 * the record. Nothing is submitted here: the platform's update reaches the inbound webhook
 * (MessengerInbox), which completes the method when the sender matches the participant.
 */
export class MessengerMethod implements SignatureMethodAdapter {
  readonly type = 'messenger' as const;
  private readonly botUsername: string;
  private readonly linkBase: string;
  private readonly ttlMs: number;

  constructor(settings: MessengerSettings) {
    this.botUsername = settings.botUsername.replace(/^@/, '');
    this.linkBase = settings.linkBase.replace(/\/+$/, '');
    this.ttlMs = (settings.challengeTtlSeconds ?? 600) * 1000;
  }

  appliesTo({ participant }: Pick<MethodContext, 'participant'>): boolean {
    return participant.contactPointType === 'messenger';
  }

  async start({ participant, now }: MethodContext): Promise<MethodOutcome> {
    if (participant.contactPointType !== 'messenger' || !participant.contactPointValue) {
      throw DomainError.invalid(['methodType'], 'This participant has no messenger contact point', 'method_not_applicable');
    }
    const challenge = `${CHALLENGE_PREFIX}${randomCrockford(CHALLENGE_LENGTH)}`;
    const state: MessengerState = { challenge, expiresAt: new Date(now.getTime() + this.ttlMs).toISOString() };
    return { status: 'pending', step: this.stepFor(challenge), state };
  }

  async submit(): Promise<MethodOutcome> {
    throw DomainError.invalid(
      ['methodType'],
      `Nothing is submitted for messenger: send the challenge to @${this.botUsername} and the platform completes the method; refresh to see it`,
      'method_completes_outside',
    );
  }

  /** Pending until the platform's update arrives (the inbox completes it); an unanswered challenge expires. */
  async refresh({ method, now }: MethodContext): Promise<MethodOutcome> {
    const state = readMessengerState(method.state);
    if (!state || isExpired(state, now)) return { status: 'failed', reason: 'expired' };
    return { status: 'pending', step: method.step ?? this.stepFor(state.challenge) };
  }

  private stepFor(challenge: string): MethodStep {
    return {
      prompt:
        `Send this code to @${this.botUsername} from the messenger account named on this record: ${challenge}. ` +
        `Opening the link does it for you. The code signs this record version only and expires in ${Math.round(this.ttlMs / 60_000)} minutes.`,
      proofText: null,
      proofTitle: null,
      url: `${this.linkBase}/${this.botUsername}?start=${challenge}`,
      challenge,
    };
  }
}
