import { described } from '../describe.js';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { MAX_FILTER_LENGTH, type RecordService } from '../../domain/records/record-service.js';
import type { RecordView } from '../../domain/records/record-view.js';
import type { GraphContext } from '../context.js';
import { CreateAgreementInput, CreateDeclarationInput, UpdateAgreementInput } from '../types/record.inputs.js';
import { RecordObject, RecordPageObject } from '../types/record.types.js';

/** GraphQL's filters take any string: a value that is no status or type matches no record. */
const FILTER_NOTE = `A RecordStatus / RecordType value; any other string matches no record (at most ${MAX_FILTER_LENGTH} characters)`;

@Resolver(() => RecordObject)
export class RecordResolver {
  constructor(private readonly records: RecordService) {}

  @Query(() => RecordObject, { description: described('A record by id or AGR reference', 'records.get') })
  record(@Ctx() { principal }: GraphContext, @Arg('id') id: string): Promise<RecordView> {
    return this.records.get(principal, id);
  }

  @Query(() => RecordPageObject, { description: described("Records in the caller's identity graph, newest first", 'records.list') })
  myRecords(
    @Ctx() { principal }: GraphContext,
    @Arg('status', () => String, { nullable: true, description: FILTER_NOTE }) status: string | null,
    @Arg('type', () => String, { nullable: true, description: FILTER_NOTE }) type: string | null,
    @Arg('limit', () => Int, { nullable: true, defaultValue: 20 }) limit: number,
    @Arg('offset', () => Int, { nullable: true, defaultValue: 0 }) offset: number,
    @Arg('teamId', () => ID, { nullable: true, description: "A team's records (any role in it); none: the caller's own and those they take part in (a team's key: its team's)" })
    teamId: string | null,
  ) {
    return this.records.list(principal, { status, type, teamId, limit, offset });
  }

  @Mutation(() => RecordObject, { description: described('Creates a draft record of any type', 'records.createAgreement') })
  createAgreement(
    @Ctx() { principal, via }: GraphContext,
    @Arg('input', () => CreateAgreementInput) input: CreateAgreementInput,
  ): Promise<RecordView> {
    return this.records.create(principal, input, via);
  }

  @Mutation(() => RecordObject, { description: described('Creates a single-declarant draft', 'records.createDeclaration') })
  createDeclaration(
    @Ctx() { principal, via }: GraphContext,
    @Arg('input', () => CreateDeclarationInput) input: CreateDeclarationInput,
  ): Promise<RecordView> {
    return this.records.create(principal, { ...input, type: 'declaration' }, via);
  }

  @Mutation(() => RecordObject, { description: described('Edits a draft; initiator only', 'records.update') })
  updateAgreement(
    @Ctx() { principal }: GraphContext,
    @Arg('id') id: string,
    @Arg('input', () => UpdateAgreementInput) input: UpdateAgreementInput,
  ): Promise<RecordView> {
    return this.records.update(principal, id, { ...input });
  }
}
