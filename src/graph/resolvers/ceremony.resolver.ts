import { described } from '../describe.js';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { CeremonyService } from '../../domain/ceremonies/ceremony-service.js';
import type { ExecutionView, IdenticonView } from '../../domain/ceremonies/execution-view.js';
import { svgDataUri } from '../../domain/ceremonies/identicon.js';
import type { RecordService } from '../../domain/records/record-service.js';
import type { RecordView } from '../../domain/records/record-view.js';
import type { SignatureProgressEvent } from '../../domain/shared/events.js';
import type { Cursored, GraphContext } from '../context.js';
import { IdenticonObject } from '../types/artifact.types.js';
import {
  FinalizeSignatureInput,
  SignatureExecutionObject,
  SignatureMethodInput,
  SignatureMethodTypeEnum,
  SignatureProgressObject,
} from '../types/ceremony.types.js';
import { RecordObject } from '../types/record.types.js';
import { RecordTypeEnum } from '../types/enums.js';
import type { RecordType } from '../../domain/records/entities.js';

@Resolver(() => SignatureExecutionObject)
export class CeremonyResolver {
  constructor(
    private readonly ceremonies: CeremonyService,
    private readonly records: RecordService,
  ) {}

  @Query(() => SignatureExecutionObject, { description: described("The caller's signature execution for the record's current version", 'ceremony.getExecution') })
  signatureExecution(
    @Ctx() { principal }: GraphContext,
    @Arg('recordId') recordId: string,
    @Arg('recordType', () => RecordTypeEnum, { nullable: true, description: 'Answer not_found unless the record has this type' }) recordType: RecordType | null,
  ): Promise<ExecutionView> {
    return this.ceremonies.get(principal, recordId, recordType ?? undefined);
  }

  @Mutation(() => SignatureExecutionObject, { description: described("Starts or resumes the caller's signature execution", 'ceremony.startExecution') })
  startSignatureExecution(
    @Ctx() { principal }: GraphContext,
    @Arg('recordId') recordId: string,
    @Arg('recordType', () => RecordTypeEnum, { nullable: true, description: 'Answer not_found unless the record has this type' }) recordType: RecordType | null,
  ): Promise<ExecutionView> {
    return this.ceremonies.startOrResume(principal, recordId, recordType ?? undefined);
  }

  @Mutation(() => SignatureExecutionObject, { description: described('Starts a signature method and returns its step', 'ceremony.startMethod') })
  startSignatureMethod(
    @Ctx() { principal }: GraphContext,
    @Arg('recordId') recordId: string,
    @Arg('methodType', () => SignatureMethodTypeEnum) methodType: string,
    @Arg('input', () => SignatureMethodInput, { nullable: true }) input: SignatureMethodInput | null,
  ): Promise<ExecutionView> {
    return this.ceremonies.startMethod(principal, recordId, methodType, { ...input });
  }

  @Mutation(() => SignatureExecutionObject, { description: described('Submits the signer’s evidence for a method (OTP, proof URL, passkey)', 'ceremony.submitMethod') })
  submitSignatureMethod(
    @Ctx() { principal }: GraphContext,
    @Arg('recordId') recordId: string,
    @Arg('methodType', () => SignatureMethodTypeEnum) methodType: string,
    @Arg('input', () => SignatureMethodInput) input: SignatureMethodInput,
  ): Promise<ExecutionView> {
    return this.ceremonies.submitMethod(principal, recordId, methodType, { ...input });
  }

  @Mutation(() => SignatureExecutionObject, { description: described('Re-checks an asynchronous method while pending', 'ceremony.refreshMethod') })
  refreshSignatureMethod(
    @Ctx() { principal }: GraphContext,
    @Arg('recordId') recordId: string,
    @Arg('methodType', () => SignatureMethodTypeEnum) methodType: string,
  ): Promise<ExecutionView> {
    return this.ceremonies.refreshMethod(principal, recordId, methodType);
  }

  @Mutation(() => SignatureExecutionObject, { description: described('Cancels a pending method', 'ceremony.cancelMethod') })
  cancelSignatureMethod(
    @Ctx() { principal }: GraphContext,
    @Arg('recordId') recordId: string,
    @Arg('methodType', () => SignatureMethodTypeEnum) methodType: string,
  ): Promise<ExecutionView> {
    return this.ceremonies.cancelMethod(principal, recordId, methodType);
  }

  @Mutation(() => RecordObject, { description: described('Finalizes the caller’s signature once canFinalize is true', 'ceremony.finalize') })
  async finalizeSignature(
    @Ctx() { principal }: GraphContext,
    @Arg('recordId') recordId: string,
    @Arg('input', () => FinalizeSignatureInput, { nullable: true }) input: FinalizeSignatureInput | null,
    @Arg('recordType', () => RecordTypeEnum, { nullable: true, description: 'Answer not_found unless the record has this type' }) recordType: RecordType | null,
  ): Promise<RecordView> {
    const acknowledgement = { acknowledgePublicVerifiedParties: input?.acknowledgePublicVerifiedParties };
    const id = await this.ceremonies.finalize(principal, recordId, acknowledgement, recordType ?? undefined);
    return this.records.afterChange(principal, id);
  }

  @Subscription(() => SignatureProgressObject, {
    description: 'Each step of every signature ceremony on a record the subscriber may read',
    subscribe: ({ args, context }) => {
      const { live, principal } = context as GraphContext;
      if (!live) throw new Error('Subscriptions are served over graphql-ws only');
      const { recordId, after } = args as { recordId: string; after?: string | null };
      return live.signatureProgress(principal, String(recordId), after ?? null);
    },
  })
  signatureProgress(@Root() event: Cursored<SignatureProgressEvent>, @Arg('recordId') _recordId: string, @Arg('after', () => String, { nullable: true, description: 'A cursor from an event this subscription (or an earlier one) gave: first replays the events after it (at most 500; more, or a cursor older than a week, is an error `resync_required`: re-read, then subscribe without it), then goes on live' }) _after: string | null): Cursored<SignatureProgressEvent> {
    return event;
  }
}

@Resolver(() => IdenticonObject)
export class IdenticonResolver {
  @FieldResolver(() => String, { nullable: true, description: 'SVG data URI; select it only when an older client needs inline images' })
  svgDataUri(@Root() identicon: IdenticonView): string | null {
    return identicon.svg ? svgDataUri(identicon.svg) : null;
  }
}
