import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RecordService } from '../../domain/records/record-service.js';
import type { RecordView } from '../../domain/records/record-view.js';
import type { GraphContext } from '../context.js';
import { RecordStatusEnum, RecordTypeEnum } from '../types/enums.js';
import { CreateAgreementInput, CreateDeclarationInput, UpdateAgreementInput } from '../types/record.inputs.js';
import { RecordObject, RecordPageObject } from '../types/record.types.js';

@Resolver(() => RecordObject)
export class RecordResolver {
  constructor(private readonly records: RecordService) {}

  @Query(() => RecordObject, { description: 'A record by id or AGR reference (scope retrieve)' })
  record(@Ctx() { principal }: GraphContext, @Arg('id') id: string): Promise<RecordView> {
    return this.records.get(principal, id);
  }

  @Query(() => RecordPageObject, { description: "Records in the caller's identity graph, newest first (scope retrieve)" })
  myRecords(
    @Ctx() { principal }: GraphContext,
    @Arg('status', () => RecordStatusEnum, { nullable: true }) status: string | null,
    @Arg('type', () => RecordTypeEnum, { nullable: true }) type: string | null,
    @Arg('limit', () => Int, { nullable: true, defaultValue: 20 }) limit: number,
    @Arg('offset', () => Int, { nullable: true, defaultValue: 0 }) offset: number,
  ) {
    return this.records.list(principal, { status, type, limit, offset });
  }

  @Mutation(() => RecordObject, { description: 'Creates a draft record of any type (scope create)' })
  createAgreement(
    @Ctx() { principal, via }: GraphContext,
    @Arg('input', () => CreateAgreementInput) input: CreateAgreementInput,
  ): Promise<RecordView> {
    return this.records.create(principal, input, via);
  }

  @Mutation(() => RecordObject, { description: 'Creates a single-declarant draft (scope create)' })
  createDeclaration(
    @Ctx() { principal, via }: GraphContext,
    @Arg('input', () => CreateDeclarationInput) input: CreateDeclarationInput,
  ): Promise<RecordView> {
    return this.records.create(principal, { ...input, type: 'declaration' }, via);
  }

  @Mutation(() => RecordObject, { description: 'Edits a draft; initiator only (scope create)' })
  updateAgreement(
    @Ctx() { principal }: GraphContext,
    @Arg('id') id: string,
    @Arg('input', () => UpdateAgreementInput) input: UpdateAgreementInput,
  ): Promise<RecordView> {
    return this.records.update(principal, id, { ...input });
  }
}
