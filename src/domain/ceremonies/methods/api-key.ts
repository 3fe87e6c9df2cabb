import { randomToken } from '../../shared/crypto.js';
import { DomainError } from '../../shared/errors.js';
import type { MethodContext, MethodOutcome, SignatureMethodAdapter } from './method.js';

/**
 * `api_key`: the machine-contract method. It proves that the holder of one specific API key — a
 * credential its identity created through a bearer session — deliberately committed to this exact
 * record version by echoing a one-time confirmation. It is allowed only for API-key callers with the
 * `verify` scope and only on notarizations (agents notarizing content hashes; `auto_seal` builds on
 * it). Presenting the key is not enough: the confirmation must be submitted, and it counts as one
 * method among the distinct ones required. Bearer and OAuth sessions can never use it.
 */
export class ApiKeyMethod implements SignatureMethodAdapter {
  readonly type = 'api_key' as const;

  appliesTo({ principal, record }: Pick<MethodContext, 'principal' | 'record'>): boolean {
    return principal.kind === 'api_key' && record.type === 'notarization';
  }

  async start({ principal, record, execution }: MethodContext): Promise<MethodOutcome> {
    if (principal.kind !== 'api_key') {
      throw DomainError.invalid(['methodType'], 'The api_key method is only for API-key callers', 'method_not_applicable');
    }
    if (record.type !== 'notarization') {
      throw DomainError.invalid(['methodType'], 'The api_key method is only for notarizations', 'method_not_applicable');
    }
    const confirmation = `${record.reference} v${execution.recordVersion} ${record.bodyHash} ${randomToken(9)}`;
    return {
      status: 'pending',
      step: {
        prompt: 'Submit this confirmation as `confirmation` to commit this API key to this exact record version.',
        proofText: null,
        proofTitle: null,
        url: null,
        challenge: confirmation,
      },
      state: { confirmation, apiKeyId: principal.apiKeyId },
    };
  }

  async submit({ principal, method, record, execution }: MethodContext, input: Record<string, unknown>): Promise<MethodOutcome> {
    if (principal.kind !== 'api_key' || principal.apiKeyId !== method.state.apiKeyId) {
      throw DomainError.invalid(['confirmation'], 'Submit with the same API key that started the method', 'api_key_mismatch');
    }
    if (typeof input.confirmation !== 'string' || input.confirmation !== method.state.confirmation) {
      throw DomainError.invalid(['confirmation'], 'The confirmation does not match the one issued for this version', 'confirmation_mismatch');
    }
    return {
      status: 'satisfied',
      evidence: `api_key|${principal.apiKeyId}|${record.id}|${execution.recordVersion}|${record.bodyHash}|${input.confirmation}`,
      step: null,
    };
  }
}
