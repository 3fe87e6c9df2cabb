import type { CredentialResolverChain } from '../domain/identity/credential-resolver.js';
import type { Principal } from '../domain/identity/principal.js';
import { DomainError } from '../domain/shared/errors.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../domain/shared/database-errors.js';
import { requestGraphError } from './errors.js';
import { credentialsFromParams, readCredentials, type HeaderBag } from './transport/credentials.js';

/**
 * The GraphQL side of the one credential-resolver chain: over HTTP from the request headers, over
 * graphql-ws from the connection params. Presented but invalid credentials fail the request with
 * the domain code (a GraphQLError with its HTTP status), never anonymity.
 */
export class GraphAuthenticator {
  constructor(private readonly chain: CredentialResolverChain) {}

  fromHeaders(headers: HeaderBag): Promise<Principal | null> {
    return this.resolve(readCredentials(headers));
  }

  fromConnectionParams(params: Record<string, unknown>): Promise<Principal | null> {
    return this.resolve(credentialsFromParams(params));
  }

  private async resolve(credentials: ReturnType<typeof readCredentials>): Promise<Principal | null> {
    try {
      return await this.chain.authenticate(credentials);
    } catch (error) {
      if (error instanceof DomainError) throw requestGraphError(error);
      if (isDatabaseUnavailable(error)) throw requestGraphError(databaseUnavailable());
      throw error;
    }
  }
}
