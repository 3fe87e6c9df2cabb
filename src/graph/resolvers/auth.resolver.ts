import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { OtpService } from '../../domain/identity/otp-service.js';
import type { SessionService } from '../../domain/identity/session-service.js';
import { API_KEY_SCOPES } from '../../domain/identity/principal.js';
import type { GraphContext } from '../context.js';
import {
  AuthenticationStatusObject,
  OtpRequestObject,
  RequestOtpInput,
  SessionObject,
  VerifyOtpInput,
} from '../types/identity.types.js';

@Resolver()
export class AuthResolver {
  constructor(
    private readonly otp: OtpService,
    private readonly sessions: SessionService,
  ) {}

  @Mutation(() => OtpRequestObject, { description: 'Mails a six-digit code for the given purpose' })
  requestOtp(@Arg('input', () => RequestOtpInput) input: RequestOtpInput): Promise<OtpRequestObject> {
    return this.otp.request(input);
  }

  @Mutation(() => SessionObject, { description: 'Exchanges an authenticate code for a bearer token' })
  async verifyOtp(@Arg('input', () => VerifyOtpInput) input: VerifyOtpInput): Promise<SessionObject> {
    const session = await this.sessions.signIn(input.verificationEventId, input.code);
    return { verified: true, tokenType: 'bearer', ...session };
  }

  @Query(() => AuthenticationStatusObject, { description: 'Who the caller is, and with which scopes' })
  authenticationStatus(@Ctx() { principal }: GraphContext): AuthenticationStatusObject {
    if (!principal) return { authenticated: false, authMethod: null, scopes: [], identityId: null };
    return {
      authenticated: true,
      authMethod: principal.kind,
      scopes: principal.kind === 'bearer' ? [...API_KEY_SCOPES] : [...principal.scopes],
      identityId: principal.identityId,
    };
  }
}
