import { described } from '../describe.js';
import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { GraphQLJSONObject, GraphQLSafeInt } from 'graphql-scalars';
import type { CeremonyService } from '../../domain/ceremonies/ceremony-service.js';
import type { ExecutionView } from '../../domain/ceremonies/execution-view.js';
import type { NotarizationService } from '../../domain/notarizations/notarization-service.js';
import type { RecordService } from '../../domain/records/record-service.js';
import type { RecordView } from '../../domain/records/record-view.js';
import type { GraphContext } from '../context.js';
import { SignatureExecutionObject } from '../types/ceremony.types.js';
import { RecordObject } from '../types/record.types.js';

@InputType('CoNotarizerInput')
export class CoNotarizerInput {
  @Field(() => String, { nullable: true, defaultValue: 'email', description: "Only 'email'" })
  contactPointType?: string | null;

  @Field({ description: 'Email address; lowercased, +aliases refused' })
  contactPointValue!: string;

  @Field({ description: '1..50 characters' })
  displayName!: string;
}

@InputType('CreateNotarizationInput')
export class CreateNotarizationInput {
  @Field({ description: 'file, text or hash' })
  contentType!: string;

  @Field({ description: 'SHA-256 of the exact file bytes or of the normalized text (sha256:<hex> or bare hex)' })
  contentHash!: string;

  @Field(() => String, { nullable: true, defaultValue: 'sha256' })
  hashAlgorithm?: string | null;

  @Field(() => String, { nullable: true, description: 'The text, for text notarizations' })
  text?: string | null;

  @Field(() => String, { nullable: true })
  filename?: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Bytes; a whole number up to 2^53 - 1 (files larger than 2 GiB included)' })
  sizeBytes?: number | null;

  @Field(() => String, { nullable: true })
  mimeType?: string | null;

  @Field(() => String, { nullable: true })
  label?: string | null;

  @Field(() => Boolean, { nullable: true, defaultValue: false })
  textPublic?: boolean | null;

  @Field(() => [CoNotarizerInput], { nullable: true })
  coNotarizers?: CoNotarizerInput[] | null;

  @Field(() => String, { nullable: true, defaultValue: 'pending_signature', description: 'pending_signature or auto_seal (API keys only)' })
  signatureMode?: string | null;

  @Field(() => String, { nullable: true })
  agentIdentifier?: string | null;

  @Field(() => Boolean, { nullable: true, defaultValue: false })
  onChainIncludeVerifiedParties?: boolean | null;

  @Field(() => Int, { nullable: true })
  lapseDays?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 1 })
  requiredSignatureMethodCount?: number | null;

  @Field(() => ID, { nullable: true, description: "The team that will own it (the caller's member role in it needed). A team's API key notarizes for its team, with signatureMode auto_seal." })
  teamId?: string | null;
}

@ObjectType('NotarizationNextAction', { simpleResolvers: true, description: 'The call to make next (MCP tool and REST operation)' })
export class NotarizationNextActionObject {
  @Field()
  tool!: string;

  @Field()
  operationId!: string;

  @Field(() => GraphQLJSONObject)
  arguments!: Record<string, unknown>;

  @Field()
  description!: string;
}

@ObjectType('NotarizationCreated', { simpleResolvers: true })
export class NotarizationCreatedObject {
  @Field(() => RecordObject)
  record!: RecordView;

  @Field(() => SignatureExecutionObject, { nullable: true })
  signatureExecution!: ExecutionView | null;

  @Field(() => NotarizationNextActionObject, { nullable: true })
  nextAction!: NotarizationNextActionObject | null;

  @Field(() => String, { nullable: true, description: 'What the human must do next, when anything' })
  humanStep!: string | null;
}

@Resolver()
export class NotarizationResolver {
  constructor(
    private readonly deps: {
      notarizations: NotarizationService;
      ceremonies: CeremonyService;
      records: RecordService;
    },
  ) {}

  @Mutation(() => NotarizationCreatedObject, { description: described('Notarizes a content hash', 'notarizations.create', 'auto_seal: API keys with verify') })
  async createNotarization(
    @Ctx() { principal, via }: GraphContext,
    @Arg('input', () => CreateNotarizationInput) input: CreateNotarizationInput,
  ): Promise<NotarizationCreatedObject> {
    // An auto_seal notarization comes back signed and sealed (or, with co-notarizers, submitted to them).
    const { recordId, autoSealed } = await this.deps.notarizations.create(principal, input, via);
    if (autoSealed) {
      const record = await this.deps.records.afterChange(principal, recordId);
      return { record, signatureExecution: await this.deps.ceremonies.get(principal, recordId), nextAction: null, humanStep: null };
    }
    const record = await this.deps.records.afterChange(principal, recordId);
    return {
      record,
      signatureExecution: null,
      nextAction: {
        tool: 'start_or_resume_signature_execution',
        operationId: 'startNotarizationSignatureExecution',
        arguments: { agr_reference: record.agrReference },
        description: 'Start the signature execution for this notarization, then satisfy its methods and finalize.',
      },
      humanStep: `Sign notarization ${record.agrReference}: prove intent with ${record.requiredSignatureMethodCount} signature method(s), then submit it.`,
    };
  }
}
