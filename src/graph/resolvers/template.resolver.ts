import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { described } from '../describe.js';
import type { GraphContext } from '../context.js';
import type { TemplateService } from '../../domain/templates/template-service.js';
import type { RecordView } from '../../domain/records/record-view.js';
import { RecordObject } from '../types/record.types.js';
import { CreateTemplateInput, TemplateObject, UpdateTemplateInput, UseTemplateInput } from '../types/template.types.js';

@Resolver()
export class TemplateResolver {
  constructor(private readonly service: TemplateService) {}

  @Query(() => [TemplateObject], { description: described("The caller's templates, or a team's", 'templates.list') })
  templates(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID, { nullable: true }) teamId: string | null): Promise<TemplateObject[]> {
    return this.service.list(principal, teamId);
  }

  @Query(() => TemplateObject, { description: described('One template the caller may use', 'templates.get') })
  template(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<TemplateObject> {
    return this.service.get(principal, id);
  }

  @Mutation(() => TemplateObject, { description: described('Creates a template: a text with {{placeholders}}, its party roles and defaults', 'templates.create') })
  createTemplate(@Ctx() { principal }: GraphContext, @Arg('input', () => CreateTemplateInput) input: CreateTemplateInput): Promise<TemplateObject> {
    const { teamId, ...content } = input;
    return this.service.create(principal, content, teamId);
  }

  @Mutation(() => TemplateObject, { description: described('Changes a template: a new version (records made from earlier ones keep theirs)', 'templates.update') })
  updateTemplate(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string, @Arg('input', () => UpdateTemplateInput) input: UpdateTemplateInput): Promise<TemplateObject> {
    return this.service.update(principal, id, { ...input, name: input.name ?? undefined, body: input.body ?? undefined });
  }

  @Mutation(() => Boolean, { description: described('Deletes a template (records made from it keep its id and version)', 'templates.delete') })
  async deleteTemplate(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await this.service.remove(principal, id);
    return true;
  }

  @Mutation(() => RecordObject, { description: described('A draft from a template: its placeholders filled, its party roles given', 'templates.createRecord') })
  createRecordFromTemplate(
    @Ctx() { principal, via }: GraphContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UseTemplateInput) input: UseTemplateInput,
  ): Promise<RecordView> {
    return this.service.createRecord(principal, id, input, via);
  }
}
