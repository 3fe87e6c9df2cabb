import { Arg, Ctx, ID, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { described } from '../describe.js';
import type { GraphContext } from '../context.js';
import type { ExportDownload, ExportService, ExportView } from '../../domain/exports/export-service.js';
import { CreateExportInput, ExportDownloadObject, RecordExportObject } from '../types/export.types.js';

@Resolver()
export class ExportResolver {
  constructor(private readonly service: ExportService) {}

  @Mutation(() => RecordExportObject, { description: described('Asks for a ZIP of sealed records (their PDFs, audit trails, sealed metadata and a manifest), prepared by a job', 'exports.create') })
  createExport(@Ctx() { principal }: GraphContext, @Arg('input', () => CreateExportInput) input: CreateExportInput): Promise<ExportView> {
    return this.service.create(principal, input);
  }

  @Query(() => RecordExportObject, { description: described('One export and its progress', 'exports.get') })
  recordExport(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<ExportView> {
    return this.service.get(principal, id);
  }

  @Query(() => [RecordExportObject], { description: described("The caller's exports, or a team's (newest first, at most 100)", 'exports.list') })
  recordExports(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID, { nullable: true }) teamId: string | null): Promise<ExportView[]> {
    return this.service.list(principal, teamId);
  }

  @Mutation(() => ExportDownloadObject, { description: described("A single-use link to a ready export's ZIP (conflict before it is ready)", 'exports.issueDownload') })
  issueExportDownload(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<ExportDownload> {
    return this.service.issueDownload(principal, id);
  }

  @Subscription(() => RecordExportObject, {
    description: described('An export as it is now, then at each step of its preparation; ends once it is ready or failed', 'exports.get'),
    subscribe: ({ args, context }) => {
      const { live, principal } = context as GraphContext;
      if (!live) throw new Error('Subscriptions are served over graphql-ws only');
      return live.exportProgress(principal, String((args as { id: string }).id));
    },
  })
  exportProgress(@Root() view: ExportView, @Arg('id', () => ID) _id: string): ExportView {
    return view;
  }
}
