import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { requireAccess, TEAM_OPERATION_ROLES, type TeamOperation } from '../identity/operation-access.js';
import type { Principal } from '../identity/principal.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { optionalLine } from '../shared/unicode.js';
import { LIMITS, BODY_LIMITS } from '../text-rules.js';
import { RECORD_TYPES } from '../vocabulary.js';
import type { InitiatedVia, RecordType } from '../records/entities.js';
import { validateLapseDays, validateMethodCount, validateSigningOrder } from '../records/record-input.js';
import type { RecordService } from '../records/record-service.js';
import type { RecordView } from '../records/record-view.js';
import { readerOf, readerTeams, requireTeamRole, roleAtLeast } from '../teams/team-access.js';
import { Template, type TemplateDefaults, type TemplateField, type TemplateParty } from './entities.js';
import { contentOf, draftFromTemplate, type UseTemplateInput } from './template-draft.js';
import { FIELD_LABEL_MAX, FIELD_NAME, malformedPlaceholders, placeholdersOf, TEMPLATE_FIELDS_MAX } from './template-text.js';

export const TEMPLATE_NAME_MAX = 100;
/** Templates one owner (a person or a team) may have. */
export const TEMPLATES_PER_OWNER = 200;

export type TemplateInput = {
  name: string;
  recordType?: string | null;
  title?: string | null;
  body: string;
  fields?: readonly { name: string; label: string; required?: boolean | null; maxLength?: number | null }[] | null;
  parties?: readonly { label: string; role?: string | null }[] | null;
  defaults?: { [K in keyof TemplateDefaults]?: TemplateDefaults[K] | null } | null;
};

export type TemplateView = {
  id: string;
  teamId: string | null;
  name: string;
  recordType: RecordType;
  title: string | null;
  body: string;
  fields: TemplateField[];
  parties: TemplateParty[];
  defaults: Required<TemplateDefaults>;
  version: number;
  createdAt: Date;
  updatedAt: Date;
};

export type { UseTemplateInput };

/**
 * Templates of a person or of a team: a record's text with `{{field}}` placeholders, the party roles
 * to fill and the record's defaults. A record made from one is an ordinary draft (the text rules apply
 * to the filled text exactly as to typed text) that remembers the template's id and version.
 */
export class TemplateService {
  constructor(private readonly deps: { orm: MikroORM; clock: Clock; records: RecordService }) {}

  async list(principal: Principal | null, teamId?: string | null): Promise<TemplateView[]> {
    const caller = requireAccess(principal, 'templates.list');
    const em = this.deps.orm.em.fork();
    const owner = teamId ? await this.team(em, caller, teamId, 'templates.list') : caller.identityId;
    const rows = await em.find(Template, { owner }, { orderBy: { createdAt: 'desc', id: 'asc' }, limit: TEMPLATES_PER_OWNER });
    return rows.map((row) => view(row, teamId ? owner : null));
  }

  async get(principal: Principal | null, id: string): Promise<TemplateView> {
    const caller = requireAccess(principal, 'templates.get');
    const em = this.deps.orm.em.fork();
    const { template, teamId } = await this.visible(em, caller, id, 'templates.get');
    return view(template, teamId);
  }

  async create(principal: Principal | null, input: TemplateInput, teamId?: string | null): Promise<TemplateView> {
    const caller = requireAccess(principal, 'templates.create');
    const content = checkTemplate(input);
    return this.deps.orm.em.fork().transactional(async (em) => {
      const owner = teamId ? await this.team(em, caller, teamId, 'templates.create') : caller.identityId;
      await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`templates:${owner}`]);
      if ((await em.count(Template, { owner })) >= TEMPLATES_PER_OWNER) throw new DomainError('conflict', `At most ${TEMPLATES_PER_OWNER} templates; delete one first`);
      const now = this.deps.clock.now();
      const template = em.create(Template, { owner, createdBy: caller.identityId, ...content, createdAt: now, updatedAt: now });
      await em.flush();
      return view(template, teamId ? owner : null);
    });
  }

  /** A new version: records made from earlier ones keep theirs. */
  async update(principal: Principal | null, id: string, input: Partial<TemplateInput>): Promise<TemplateView> {
    const caller = requireAccess(principal, 'templates.update');
    return this.deps.orm.em.fork().transactional(async (em) => {
      const { template, teamId } = await this.visible(em, caller, id, 'templates.update');
      const merged: TemplateInput = {
        name: input.name ?? template.name,
        recordType: input.recordType ?? template.recordType,
        title: input.title === undefined ? template.title : input.title,
        body: input.body ?? template.body,
        fields: input.fields ?? template.fields,
        parties: input.parties ?? template.parties,
        // Only the defaults given change (an omitted one keeps its value).
        defaults: { ...template.defaults, ...Object.fromEntries(Object.entries(input.defaults ?? {}).filter(([, value]) => value !== undefined)) },
      };
      Object.assign(template, checkTemplate(merged), { version: template.version + 1, updatedAt: this.deps.clock.now() });
      await em.flush();
      return view(template, teamId);
    });
  }

  async remove(principal: Principal | null, id: string): Promise<void> {
    const caller = requireAccess(principal, 'templates.delete');
    const em = this.deps.orm.em.fork();
    const { template } = await this.visible(em, caller, id, 'templates.delete');
    // Records made from it keep its id and version: they point at history, not at a row.
    await em.nativeDelete(Template, { id: template.id });
  }

  /**
   * A draft from the template: its placeholders filled with `values`, its party roles with `parties`
   * (one per role, in the template's order). A team's template makes the team's record.
   */
  async createRecord(principal: Principal | null, id: string, input: UseTemplateInput, via: InitiatedVia): Promise<RecordView> {
    const caller = requireAccess(principal, 'templates.createRecord');
    const { template, teamId } = await this.usable(caller, id, 'templates.get');
    return this.deps.records.create(caller, draftFromTemplate(contentOf(template), input, teamId), via, { templateId: template.id, templateVersion: template.version });
  }

  /** A template the caller may make records from (or a team's with the role `operation` needs): its content and team, else not found. */
  async usable(caller: Principal, id: string, operation: TeamOperation): Promise<{ template: Template; teamId: string | null }> {
    return this.visible(this.deps.orm.em.fork(), caller, id, operation);
  }

  /** A template the caller may use or change: their own, or their team's with the role the operation needs. Else not found. */
  private async visible(em: EntityManager, caller: Principal, id: string, operation: TeamOperation): Promise<{ template: Template; teamId: string | null }> {
    const template = isUuid(id) ? await em.findOne(Template, { id: id.toLowerCase() }) : null;
    if (template && template.owner === caller.identityId && !(caller.kind === 'api_key' && caller.teamKey)) return { template, teamId: null };
    const role = template ? (await readerTeams(em, readerOf(caller))).get(template.owner) : undefined;
    if (!template || !role) throw DomainError.notFound('Template');
    if (!roleAtLeast(role, TEAM_OPERATION_ROLES[operation])) throw new DomainError('forbidden', `This needs the team's ${TEAM_OPERATION_ROLES[operation]} role; yours is ${role}`);
    return { template, teamId: template.owner };
  }

  private async team(em: EntityManager, caller: Principal, teamId: string, operation: TeamOperation): Promise<string> {
    await requireTeamRole(em, caller, teamId, operation);
    return teamId.toLowerCase();
  }
}

/** A template's content, checked: issues name the field; nothing is half-stored. */
function checkTemplate(input: TemplateInput): Pick<Template, 'name' | 'recordType' | 'title' | 'body' | 'fields' | 'parties' | 'defaults'> {
  const issues = new IssueCollector();
  const name = optionalLine(issues, input.name, 'name', TEMPLATE_NAME_MAX);
  if (!name && issues.issues.length === 0) issues.add(['name'], 'Give the template a name', 'missing');
  const recordType = (input.recordType ?? 'agreement') as RecordType;
  if (!(RECORD_TYPES as readonly string[]).includes(recordType) || recordType === 'notarization') {
    issues.add(['recordType'], 'Must be agreement, declaration or witnessed_agreement', 'invalid_enum');
  }
  const title = optionalLine(issues, input.title, 'title', LIMITS.title * 2);
  const body = typeof input.body === 'string' ? input.body.normalize('NFC') : '';
  if (!body.trim()) issues.add(['body'], 'Give the text', 'missing');
  if (body.length > BODY_LIMITS.maxRawCharacters) issues.add(['body'], `At most ${BODY_LIMITS.maxRawCharacters} characters`, 'too_long');

  const fields: TemplateField[] = [];
  const rawFields = input.fields ?? [];
  if (rawFields.length > TEMPLATE_FIELDS_MAX) issues.add(['fields'], `At most ${TEMPLATE_FIELDS_MAX} fields`, 'too_long');
  rawFields.forEach((field, index) => {
    if (!FIELD_NAME.test(field.name ?? '')) issues.add(['fields', index, 'name'], 'Lowercase letters, digits and _, starting with a letter (at most 40)', 'invalid_format');
    const label = optionalLine(issues, field.label, `fields.${index}.label`, FIELD_LABEL_MAX) ?? field.name;
    const maxLength = field.maxLength ?? null;
    if (maxLength !== null && (!Number.isInteger(maxLength) || maxLength < 1 || maxLength > 2000)) issues.add(['fields', index, 'maxLength'], 'From 1 to 2000', 'out_of_range');
    fields.push({ name: field.name, label, required: field.required ?? true, maxLength });
  });
  const declared = new Set(fields.map((field) => field.name));
  if (declared.size !== fields.length) issues.add(['fields'], 'Field names must not repeat', 'not_unique');
  const used = placeholdersOf(`${title ?? ''}\n${body}`);
  for (const placeholder of used) if (!declared.has(placeholder)) issues.add(['fields'], `{{${placeholder}}} is used but not declared`, 'undeclared_field');
  for (const field of fields) if (!used.includes(field.name)) issues.add(['fields'], `'${field.name}' is declared but not used`, 'unused_field');
  for (const [path, text] of [['title', title ?? ''], ['body', body]] as const) {
    for (const run of malformedPlaceholders(text)) issues.add([path], `${run} is not a placeholder: use {{lowercase_name}}`, 'malformed_placeholder');
  }

  const parties: TemplateParty[] = (input.parties ?? []).map((party, index) => {
    const label = optionalLine(issues, party.label, `parties.${index}.label`, LIMITS.displayName) ?? '';
    if (!label) issues.add(['parties', index, 'label'], 'Give the role a label', 'missing');
    const role = party.role ?? 'party';
    if (role !== 'party' && role !== 'witness') issues.add(['parties', index, 'role'], "Must be 'party' or 'witness'", 'invalid_enum');
    return { label, role: role as TemplateParty['role'] };
  });
  const count = (role: TemplateParty['role']) => parties.filter((party) => party.role === role).length;
  if (count('party') > LIMITS.parties) issues.add(['parties'], `At most ${LIMITS.parties} parties`, 'too_long');
  if (count('witness') > LIMITS.witnesses) issues.add(['parties'], `At most ${LIMITS.witnesses} witnesses`, 'too_long');
  if (recordType !== 'witnessed_agreement' && count('witness') > 0) issues.add(['parties'], 'Only a witnessed agreement has witnesses', 'not_allowed');
  if (recordType === 'declaration' && count('party') > 0) issues.add(['parties'], 'A declaration has no other party', 'not_allowed');

  const defaults: TemplateDefaults = {
    requiredSignatureMethodCount: validateMethodCount(issues, input.defaults?.requiredSignatureMethodCount),
    lapseDays: validateLapseDays(issues, input.defaults?.lapseDays),
    onChainFullText: input.defaults?.onChainFullText ?? false,
    onChainIncludeVerifiedParties: input.defaults?.onChainIncludeVerifiedParties ?? false,
    signingOrder: validateSigningOrder(issues, input.defaults?.signingOrder),
  };
  issues.throwIfAny();
  return { name: name!, recordType, title, body, fields, parties, defaults };
}

function view(template: Template, teamId: string | null): TemplateView {
  const { id, name, recordType, title, body, fields, parties, defaults, version, createdAt, updatedAt } = template;
  return { id, teamId, name, recordType, title, body, fields, parties, defaults: { ...defaults, signingOrder: defaults.signingOrder ?? 'parallel' }, version, createdAt, updatedAt };
}

