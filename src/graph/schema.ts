import type { GraphQLSchema } from 'graphql';
import { buildSchema, type NonEmptyArray, type PubSub } from 'type-graphql';
import { AuthResolver } from './resolvers/identity-auth.resolver.js';
import { CeremonyResolver, IdenticonResolver } from './resolvers/ceremony.resolver.js';
import { LifecycleResolver } from './resolvers/lifecycle.resolver.js';
import { NotarizationResolver } from './resolvers/notarization.resolver.js';
import { VerificationResolver } from './resolvers/verification.resolver.js';
import { IdentityResolver } from './resolvers/identity.resolver.js';
import { InboundResolver } from './resolvers/inbound.resolver.js';
import { RecordResolver } from './resolvers/record.resolver.js';
import { ArtifactsResolver } from './resolvers/artifacts.resolver.js';
import { WebhookResolver } from './resolvers/webhook.resolver.js';
import { TeamResolver } from './resolvers/team.resolver.js';
import { TemplateResolver } from './resolvers/template.resolver.js';
import { BulkSendResolver } from './resolvers/bulk-send.resolver.js';
import { SecretInputResolver } from './resolvers/secret-input.resolver.js';
import { ExportResolver } from './resolvers/export.resolver.js';

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
  artifacts: ArtifactsResolver;
  webhooks: WebhookResolver;
  teams: TeamResolver;
  templates: TemplateResolver;
  bulkSends: BulkSendResolver;
  secretInputs: SecretInputResolver;
  exports: ExportResolver;
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
  ArtifactsResolver,
  WebhookResolver,
  TeamResolver,
  TemplateResolver,
  BulkSendResolver,
  SecretInputResolver,
  ExportResolver,
];

/** Builds the product's primary API. Resolver instances come from the composition root. */
export async function buildGraphSchema(
  resolvers: Resolvers | null,
  options: { emitSchemaFile?: string; pubSub?: PubSub } = {},
): Promise<GraphQLSchema> {
  const instances = new Map<Function, unknown>();
  for (const resolver of Object.values(resolvers ?? {}) as object[]) instances.set(resolver.constructor, resolver);
  const schema = await buildSchema({
    resolvers: resolverClasses,
    container: { get: (cls: Function) => instances.get(cls) },
    validate: false,
    pubSub: options.pubSub,
    emitSchemaFile: options.emitSchemaFile ? { path: options.emitSchemaFile, sortedSchema: false } : false,
  });
  const mutation = schema.getMutationType();
  if (mutation) mutation.description = MUTATION_DESCRIPTION;
  return schema;
}

/** type-graphql has no place for the root types' own descriptions: the Mutation type's is set here. */
const MUTATION_DESCRIPTION = `Every mutation accepts an \`Idempotency-Key\` HTTP header (IETF httpapi Idempotency-Key draft) on POST /graphql:
a random value of 16..255 visible ASCII characters (a UUID, for instance). The first request with a key runs and
its result is kept for 24 hours per caller; a retry with the same key, document, variables and caller gets that
result again with the response header \`Idempotent-Replayed: true\`. The same key with a different request answers
HTTP 422 with \`extensions.code\` \`validation_error\` (issue type \`idempotency_key_reused\`); a retry while the first
request still runs answers HTTP 409 with \`extensions.code\` \`idempotency_key_in_use\`. Results with
\`internal_error\`, \`rate_limited\` or \`unavailable\` errors are not kept: their retry runs again.`;
