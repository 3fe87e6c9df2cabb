/**
 * The service's own placeholder rules (src/domain/templates/template-text.ts), imported rather than
 * copied: what the editor finds in a text and the preview fills in is what the service will.
 */
import type { TemplateRowFragment } from '../graphql/generated';
export { FIELD_LABEL_MAX, FIELD_VALUE_MAX, fill, placeholdersOf, TEMPLATE_FIELDS_MAX } from '../../../src/domain/templates/template-text.js';

export type TemplateRecordType = 'agreement' | 'declaration' | 'witnessed_agreement';

export const TEMPLATE_TYPE_LABELS: Record<TemplateRecordType, string> = {
  agreement: 'Agreement',
  declaration: 'Declaration',
  witnessed_agreement: 'Witnessed agreement',
};

export const SIGNING_ORDER_LABELS = { parallel: 'Everyone at once', sequential: 'One at a time, in list order' } as const;

export function templateTypeLabel(type: string): string {
  return TEMPLATE_TYPE_LABELS[type as TemplateRecordType] ?? type;
}

/**
 * The CSV a bulk send reads: each field by its name, then per party role i (1-based) its name, its
 * contact and optionally the contact's type.
 */
export function bulkCsvColumns(template: Pick<TemplateRowFragment, 'fields' | 'parties'>): string[] {
  return [
    ...template.fields.map((field) => field.name),
    ...template.parties.flatMap((_, index) => [`party_${index + 1}_name`, `party_${index + 1}_contact`, `party_${index + 1}_contact_type`]),
  ];
}
