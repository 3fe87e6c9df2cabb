import { described } from '../describe.js';
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { SecretInputs } from '../../domain/mcp/secret-inputs.js';
import type { GraphContext } from '../context.js';
import { CompleteSecretInputInput, SecretInputOpeningObject, SecretInputRequestObject, SignatureMethodTypeEnum, SignInSecretInputOpeningObject } from '../types/ceremony.types.js';

/** Secret inputs in the human's hands: the link an MCP tool call gives, and the page that uses it. */
@Resolver()
export class SecretInputResolver {
  constructor(private readonly secretInputs: SecretInputs) {}

  @Mutation(() => SecretInputOpeningObject, {
    description: described('Gives a link where the human enters a started method\'s secret input on the service\'s page (MCP URL-mode elicitation)', 'ceremony.openSecretInput', 'over /mcp only, for a client that declared URL-mode elicitation'),
  })
  openSecretInput(
    @Ctx() { principal, mcpSessionKey }: GraphContext,
    @Arg('recordId') recordId: string,
    @Arg('methodType', () => SignatureMethodTypeEnum) methodType: string,
  ): Promise<SecretInputOpeningObject> {
    return this.secretInputs.open(principal, mcpSessionKey, recordId, methodType);
  }

  @Mutation(() => SignInSecretInputOpeningObject, {
    description: described('Gives a link where the human enters a sign-in code on the service\'s page, opening this MCP session\'s retrieval grant (URL-mode elicitation); once they did, the grant', 'identity.openSignInPage', 'over /mcp only, for a client that declared URL-mode elicitation'),
  })
  async openSignInSecretInput(@Ctx() { mcpSessionKey }: GraphContext, @Arg('verificationEventId') verificationEventId: string): Promise<SignInSecretInputOpeningObject> {
    const opened = await this.secretInputs.openSignIn(mcpSessionKey, verificationEventId);
    return { link: opened.link, grant: opened.grant && { authenticated: true, ...opened.grant } };
  }

  @Mutation(() => SecretInputRequestObject, {
    description: described('Opens a secret-input link in this browser (the first browser keeps it) and answers what it is for', 'secretInputs.describe'),
  })
  claimSecretInput(@Arg('ticket') ticket: string, @Arg('browserKey') browserKey: string): Promise<SecretInputRequestObject> {
    return this.secretInputs.describe(ticket, browserKey);
  }

  @Mutation(() => SecretInputRequestObject, {
    description: described('Gives the secret input on the link\'s page: the method is submitted as the assistant\'s caller, and the link is spent', 'secretInputs.complete'),
  })
  completeSecretInput(@Arg('input', () => CompleteSecretInputInput) input: CompleteSecretInputInput): Promise<SecretInputRequestObject> {
    return this.secretInputs.complete(input.ticket, input.browserKey, input);
  }
}
