import { described } from '../describe.js';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { OtpService } from '../../domain/identity/otp-service.js';
import type { SessionService } from '../../domain/identity/session-service.js';
import type { McpGrants } from '../../domain/mcp/grants.js';
import type { GraphContext } from '../context.js';
import {
  AuthenticationStatusObject,
  McpAuthenticationObject,
  OtpRequestObject,
  RequestOtpInput,
  SessionObject,
  SignOutObject,
  VerifyMcpAuthenticationInput,
  VerifyOtpInput,
} from '../types/identity.types.js';

@Resolver()
export class AuthResolver {
  constructor(
    private readonly deps: {
      otp: OtpService;
      sessions: SessionService;
      mcpGrants: McpGrants;
    },
  ) {}

  @Mutation(() => OtpRequestObject, { description: described('Mails a six-digit code for the given purpose', 'identity.requestOtp') })
  requestOtp(@Arg('input', () => RequestOtpInput) input: RequestOtpInput, @Ctx() { clientAddress }: GraphContext): Promise<OtpRequestObject> {
    return this.deps.otp.request(input, { client: clientAddress });
  }

  @Mutation(() => SessionObject, { description: described('Verifies a code: an authenticate code gives a bearer token; an agreement_confirmation code only proves control of its address', 'identity.verifyOtp') })
  async verifyOtp(@Arg('input', () => VerifyOtpInput) input: VerifyOtpInput, @Ctx() { clientAddress }: GraphContext): Promise<SessionObject> {
    const verified = await this.deps.sessions.verifyCode(input.verificationEventId, input.code, clientAddress);
    if ('confirmed' in verified) return { verified: true, accessToken: null, tokenType: null, expiresIn: null, identityId: null };
    return { verified: true, tokenType: 'bearer', ...verified };
  }

  @Mutation(() => McpAuthenticationObject, {
    description: described('Exchanges an authenticate code for a retrieve-only grant on the caller\'s MCP session (at most 600 seconds)', 'identity.openMcpGrant', 'over /mcp only'),
  })
  async verifyMcpAuthentication(
    @Arg('input', () => VerifyMcpAuthenticationInput) input: VerifyMcpAuthenticationInput,
    @Ctx() { clientAddress, mcpSessionKey }: GraphContext,
  ): Promise<McpAuthenticationObject> {
    return { authenticated: true, ...(await this.deps.mcpGrants.open(mcpSessionKey, input, clientAddress)) };
  }

  @Mutation(() => SignOutObject, {
    description: described('Ends the caller\'s session at once, on every instance; with everywhere, every session of the identity (API keys and connected assistants stay)', 'identity.signOut'),
  })
  signOut(
    @Ctx() { principal }: GraphContext,
    @Arg('everywhere', () => Boolean, { nullable: true, defaultValue: false, description: 'End every session of the identity, not only this one' }) everywhere: boolean | null,
  ): Promise<SignOutObject> {
    return this.deps.sessions.signOut(principal, everywhere ?? false);
  }

  @Query(() => AuthenticationStatusObject, { description: described('Who the caller is, and with which scopes', 'identity.authenticationStatus') })
  authenticationStatus(@Ctx() { principal }: GraphContext): AuthenticationStatusObject {
    if (!principal) return { authenticated: false, authMethod: null, scopes: [], identityId: null, sessionBound: false };
    return {
      authenticated: true,
      // The schema's word for a session is its credential, `bearer`; an MCP grant is `mcp_otp`.
      authMethod: principal.kind === 'session' ? 'bearer' : principal.kind === 'mcp_session' ? 'mcp_otp' : principal.kind,
      scopes: [...principal.scopes],
      identityId: principal.identityId,
      sessionBound: principal.kind === 'mcp_session' && principal.sessionBound,
    };
  }
}
