import { entry } from './entry.js';
import { CreateRecordFromTemplateDocument, CreateTemplateDocument, DeleteTemplateDocument, GetTemplateDocument, ListTemplatesDocument, UpdateTemplateDocument } from './generated.js';

/** Templates of a person or a team, and drafts made from them. */
export const templates = {
  list: entry('templates.list', ListTemplatesDocument, (data) => data.templates),
  get: entry('templates.get', GetTemplateDocument, (data) => data.template),
  create: entry('templates.create', CreateTemplateDocument, (data) => data.createTemplate),
  update: entry('templates.update', UpdateTemplateDocument, (data) => data.updateTemplate),
  delete: entry('templates.delete', DeleteTemplateDocument, (data) => data.deleteTemplate),
  createRecord: entry('templates.createRecord', CreateRecordFromTemplateDocument, (data) => data.createRecordFromTemplate),
};
