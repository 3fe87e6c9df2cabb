import { IssueCollector } from '../shared/errors.js';
import type { CreateRecordInput, NamedPartyInput } from '../records/record-input.js';
import type { Template, TemplateParty } from './entities.js';
import { checkValues, fill } from './template-text.js';

/** What a record made from a template is made of: a version's content, without who owns it. */
export type TemplateContent = Pick<Template, 'id' | 'version' | 'recordType' | 'title' | 'body' | 'fields' | 'parties' | 'defaults'>;

export type UseTemplateInput = { values?: Readonly<Record<string, unknown>> | null; parties?: readonly NamedPartyInput[] | null };

export function contentOf(template: Template): TemplateContent {
  const { id, version, recordType, title, body, fields, parties, defaults } = template;
  return { id, version, recordType, title, body, fields, parties, defaults };
}

/**
 * The draft a template makes with these values and parties, as RecordService.create takes it: the
 * placeholders filled, one party per role in the template's order. Unknown, missing or too long
 * values are issues naming `values.<field>`, a wrong number of parties names `parties`; the record's
 * own rules (text, contacts) are RecordService's to check after. One function for a single draft
 * and for every row of a bulk send: a row's issues are exactly a single create's.
 */
export function draftFromTemplate(template: TemplateContent, input: UseTemplateInput, teamId: string | null): CreateRecordInput {
  const issues = new IssueCollector();
  const values = checkValues(issues, template.fields, input.values);
  const given = input.parties ?? [];
  if (given.length !== template.parties.length) {
    issues.add(['parties'], `Give ${template.parties.length} ${template.parties.length === 1 ? 'party' : 'parties'}, one per role: ${template.parties.map((p) => p.label).join(', ') || 'none'}`, 'wrong_count');
  }
  issues.throwIfAny();
  const byRole = (role: TemplateParty['role']) => template.parties.flatMap((party, index) => (party.role === role ? [given[index]!] : []));
  const parties = byRole('party');
  const witnesses = byRole('witness');
  return {
    type: template.recordType,
    title: template.title === null ? null : fill(template.title, values) || null,
    body: fill(template.body, values),
    parties: parties.length ? parties : null,
    witnesses: witnesses.length ? witnesses : null,
    onChainFullText: template.defaults.onChainFullText,
    onChainIncludeVerifiedParties: template.defaults.onChainIncludeVerifiedParties,
    lapseDays: template.defaults.lapseDays,
    requiredSignatureMethodCount: template.defaults.requiredSignatureMethodCount,
    signingOrder: template.defaults.signingOrder ?? 'parallel',
    teamId,
  };
}
