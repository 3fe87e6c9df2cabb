import type { GraphQLSchema } from 'graphql';
import { buildSchema, type NonEmptyArray, type PubSub } from 'type-graphql';
import { AuthResolver } from './resolvers/auth.resolver.js';
import { CeremonyResolver, IdenticonResolver } from './resolvers/ceremony.resolver.js';
import { LifecycleResolver } from './resolvers/lifecycle.resolver.js';
import { NotarizationResolver } from './resolvers/notarization.resolver.js';
import { VerificationResolver } from './resolvers/verification.resolver.js';
import { IdentityResolver } from './resolvers/identity.resolver.js';
import { InboundResolver } from './resolvers/inbound.resolver.js';
import { RecordResolver } from './resolvers/record.resolver.js';

export type Resolvers = {
  auth: AuthResolver;
  identity: IdentityResolver;
  records: RecordResolver;
  ceremonies: CeremonyResolver;
  identicons: IdenticonResolver;
  inbound: InboundResolver;
  lifecycle: LifecycleResolver;
  notarizations: NotarizationResolver;
  verification: VerificationResolver;
};

const resolverClasses: NonEmptyArray<Function> = [
  AuthResolver,
  IdentityResolver,
  RecordResolver,
  CeremonyResolver,
  IdenticonResolver,
  LifecycleResolver,
  InboundResolver,
  NotarizationResolver,
  VerificationResolver,
];

/** Builds the product's primary API. Resolver instances come from the composition root. */
export async function buildGraphSchema(
  resolvers: Resolvers | null,
  options: { emitSchemaFile?: string; pubSub?: PubSub } = {},
): Promise<GraphQLSchema> {
  const instances = new Map<Function, unknown>();
  for (const resolver of Object.values(resolvers ?? {}) as object[]) instances.set(resolver.constructor, resolver);
  return buildSchema({
    resolvers: resolverClasses,
    container: { get: (cls: Function) => instances.get(cls) },
    validate: false,
    pubSub: options.pubSub,
    emitSchemaFile: options.emitSchemaFile ? { path: options.emitSchemaFile, sortedSchema: false } : false,
  });
}
