import { DomainError } from '../../shared/errors.js';
import type { OtpService } from '../../identity/otp-service.js';
import type { MethodContext, MethodOutcome, SignatureMethodAdapter, StepPreview } from './method.js';

export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}${'*'.repeat(Math.max(1, local.length - 1))}@${domain}`;
}

/**
 * A signature-purpose code mailed to the participant's own email contact point. Its codes are
 * separate from authentication codes: an authentication code submitted here fails.
 */
export class EmailOtpMethod implements SignatureMethodAdapter {
  readonly type = 'email_otp' as const;

  constructor(private readonly otp: OtpService) {}

  appliesTo({ participant }: Pick<MethodContext, 'participant'>): boolean {
    return participant.contactPointType === 'email' && participant.contactPointValue !== null;
  }

  async start({ em, participant }: MethodContext): Promise<MethodOutcome> {
    if (participant.contactPointType !== 'email' || !participant.contactPointValue) {
      throw DomainError.invalid(['methodType'], 'This participant has no email contact point', 'method_not_applicable');
    }
    const issued = await this.otp.request({ email: participant.contactPointValue, purpose: 'signature' }, { em });
    return {
      status: 'pending',
      step: {
        prompt: `Enter the six-digit signature code sent to ${maskEmail(participant.contactPointValue)}. It signs this record version only.`,
        proofText: null,
        proofTitle: null,
        url: null,
        challenge: null,
      },
      state: { verificationEventId: issued.verificationEventId },
    };
  }

  /** The attempt is spent (and the code checked) before the step's transaction. */
  async count({ method, action, input }: StepPreview): Promise<void> {
    const eventId = method?.state.verificationEventId;
    if (action !== 'submit' || method?.status !== 'pending' || typeof eventId !== 'string') return;
    await this.otp.spendAttempt(eventId, typeof input.code === 'string' ? input.code : '', 'signature');
  }

  async submit({ em, method, record, execution }: MethodContext, input: Record<string, unknown>): Promise<MethodOutcome> {
    const eventId = method.state.verificationEventId;
    if (method.status !== 'pending' || typeof eventId !== 'string') {
      throw new DomainError('conflict', 'Start the email_otp method before submitting a code');
    }
    const code = typeof input.code === 'string' ? input.code : '';
    const event = await this.otp.consume(em, eventId, code, 'signature');
    return {
      status: 'satisfied',
      evidence: `email_otp|${event.id}|${event.destination}|${record.id}|${execution.recordVersion}`,
      step: null,
    };
  }
}
