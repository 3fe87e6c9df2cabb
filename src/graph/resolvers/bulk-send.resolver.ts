import { Arg, Ctx, ID, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { described } from '../describe.js';
import type { GraphContext } from '../context.js';
import type { BulkSendService, BulkSendView } from '../../domain/bulk-sends/bulk-send-service.js';
import { BulkSendInput, BulkSendObject } from '../types/bulk-send.types.js';

/** A bulk send as the schema shows it: issue paths as strings, issue types as codes. */
export type BulkSendAnswer = Omit<BulkSendView, 'failures'> & { failures: { row: number; recordId: string | null; issues: { path: string[]; message: string; code: string }[] }[] };

function bulkSendAnswer(view: BulkSendView): BulkSendAnswer {
  return { ...view, failures: view.failures.map((f) => ({ ...f, issues: f.issues.map((i) => ({ path: i.path.map(String), message: i.message, code: i.type })) })) };
}

@Resolver()
export class BulkSendResolver {
  constructor(private readonly service: BulkSendService) {}

  @Mutation(() => BulkSendObject, { description: described('Many records from one template: every row checked now, the records made by a job', 'bulkSends.start') })
  async startBulkSend(@Ctx() { principal, via }: GraphContext, @Arg('templateId', () => ID) templateId: string, @Arg('input', () => BulkSendInput) input: BulkSendInput): Promise<BulkSendAnswer> {
    return bulkSendAnswer(await this.service.start(principal, templateId, input, via));
  }

  @Query(() => BulkSendObject, { description: described('One bulk send: its counts and failed rows', 'bulkSends.get') })
  async bulkSend(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<BulkSendAnswer> {
    return bulkSendAnswer(await this.service.get(principal, id));
  }

  @Query(() => [BulkSendObject], { description: described("The caller's bulk sends, or a team's, newest first (at most 100)", 'bulkSends.list') })
  async bulkSends(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID, { nullable: true }) teamId: string | null): Promise<BulkSendAnswer[]> {
    return (await this.service.list(principal, teamId)).map(bulkSendAnswer);
  }

  @Subscription(() => BulkSendObject, {
    description: 'A bulk send as it progresses: at once, then after each change; ends once it is completed',
    subscribe: ({ args, context }) => {
      const { live, principal } = context as GraphContext;
      if (!live) throw new Error('Subscriptions are served over graphql-ws only');
      return live.bulkSendProgress(principal, String((args as { id: string }).id));
    },
  })
  bulkSendProgress(@Root() view: BulkSendView, @Arg('id', () => ID) _id: string): BulkSendAnswer {
    return bulkSendAnswer(view);
  }
}
