import { parse } from 'csv-parse/sync';
import { DomainError, IssueCollector } from '../shared/errors.js';
import type { NamedPartyInput } from '../records/record-input.js';
import type { TemplateContent } from '../templates/template-draft.js';
import type { BulkSendRowInput } from './entities.js';

/** The most rows one bulk send makes, and the largest CSV file it reads. */
export const BULK_SEND_LIMITS = { rows: 1000, csvBytes: 256 * 1024 } as const;

/** A bulk send's rows as sent: a CSV file or rows already shaped (JSON, GraphQL). */
export type BulkSendRowsInput = { csv?: string | null; rows?: readonly { values?: Readonly<Record<string, unknown>> | null; parties?: readonly NamedPartyInput[] | null }[] | null };

/** The CSV columns of a template's party role `i` (1-based, in the template's order). */
const partyColumns = (i: number) => ({ name: `party_${i}_name`, contact: `party_${i}_contact`, contactType: `party_${i}_contact_type` });

/**
 * The rows of a bulk send, or a 422 refusing the whole file: exactly one of `csv` and `rows`, from 1
 * to BULK_SEND_LIMITS.rows rows, and for a CSV a header naming only the template's fields and party
 * columns (every required field and every role's name and contact), each row as long as the header.
 * What a row says is not checked here: each row's values are checked as a single create checks them.
 */
export function bulkSendRows(template: TemplateContent, input: BulkSendRowsInput): BulkSendRowInput[] {
  const given = (input.csv != null ? 1 : 0) + (input.rows != null ? 1 : 0);
  if (given !== 1) throw DomainError.invalid(['input'], 'Give the rows either as a CSV file (csv) or as rows, exactly one of them', given === 0 ? 'missing' : 'not_allowed');
  const rows = input.csv != null ? csvRows(template, input.csv) : (input.rows ?? []).map((row) => ({ values: { ...(row.values ?? {}) }, parties: [...(row.parties ?? [])] }));
  const field = input.csv != null ? 'csv' : 'rows';
  if (rows.length === 0) throw DomainError.invalid([field], 'Give at least one row', 'missing');
  if (rows.length > BULK_SEND_LIMITS.rows) throw DomainError.invalid([field], `At most ${BULK_SEND_LIMITS.rows} rows (${rows.length} given)`, 'too_many');
  return rows;
}

function csvRows(template: TemplateContent, csv: string): BulkSendRowInput[] {
  if (Buffer.byteLength(csv) > BULK_SEND_LIMITS.csvBytes) throw DomainError.invalid(['csv'], `At most ${BULK_SEND_LIMITS.csvBytes} bytes`, 'too_long');
  let records: string[][];
  try {
    records = parse(csv, { bom: true, skip_empty_lines: true, relax_column_count: false, trim: true });
  } catch (error) {
    const { lines, message } = error as { lines?: number; message?: string };
    throw DomainError.invalid(['csv'], `Not a CSV file${lines ? ` (line ${lines})` : ''}: ${(message ?? 'unreadable').replace(/^[A-Za-z ]+: /, '')}`, 'malformed_csv');
  }
  const [header, ...data] = records;
  if (!header) throw DomainError.invalid(['csv'], 'Give a header row and at least one row', 'missing');
  const issues = new IssueCollector();
  const known = new Map<string, string>();
  for (const field of template.fields) known.set(field.name, 'field');
  template.parties.forEach((_party, index) => {
    const columns = partyColumns(index + 1);
    known.set(columns.name, 'party').set(columns.contact, 'party').set(columns.contactType, 'party');
  });
  const seen = new Set<string>();
  header.forEach((column, index) => {
    if (seen.has(column)) issues.add(['csv', 'header', index], `The column '${column}' is given twice`, 'not_unique');
    else if (!known.has(column)) issues.add(['csv', 'header', index], `The template has no column '${column}' (fields: ${template.fields.map((f) => f.name).join(', ') || 'none'}; parties: party_<i>_name, party_<i>_contact, party_<i>_contact_type for i from 1 to ${template.parties.length})`, 'unknown_column');
    seen.add(column);
  });
  const required = [
    ...template.fields.filter((field) => field.required).map((field) => field.name),
    ...template.parties.flatMap((_party, index) => [partyColumns(index + 1).name, partyColumns(index + 1).contact]),
  ];
  for (const column of required) if (!seen.has(column)) issues.add(['csv', 'header'], `The column '${column}' is missing`, 'missing_column');
  issues.throwIfAny();
  const at = new Map(header.map((column, index) => [column, index]));
  const cell = (row: string[], column: string) => {
    const index = at.get(column);
    return index === undefined ? '' : (row[index] ?? '');
  };
  return data.map((row) => {
    const values: Record<string, string> = {};
    for (const field of template.fields) {
      const value = cell(row, field.name);
      if (value !== '') values[field.name] = value;
    }
    const parties = template.parties.map((_party, index): NamedPartyInput => {
      const columns = partyColumns(index + 1);
      const type = cell(row, columns.contactType);
      return { displayName: cell(row, columns.name), contactPointType: (type === '' ? 'email' : type) as NamedPartyInput['contactPointType'], contactPointValue: cell(row, columns.contact) };
    });
    return { values, parties };
  });
}
