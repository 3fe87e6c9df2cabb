import { IssueCollector } from '../shared/errors.js';

/** A field as entities.ts stores it; written out, not imported, so that the web UI can import this file without the ORM. */
type TemplateField = { name: string; label: string; required: boolean; maxLength: number | null };

/** `{{name}}`: a placeholder of a template's title or body. */
const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]{0,39})\s*\}\}/g;
/** Anything else between double braces is a mistake the author should hear about, not text. */
const BRACES = /\{\{[^}]*\}\}/g;

export const FIELD_NAME = /^[a-z][a-z0-9_]{0,39}$/;
export const TEMPLATE_FIELDS_MAX = 50;
export const FIELD_LABEL_MAX = 100;
/** Longest value of one placeholder (the filled text's own limits apply after). */
export const FIELD_VALUE_MAX = 2000;

/** The placeholder names a text uses, in order of first use. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}

/** Double-brace runs that are not placeholders (`{{Name}}`, `{{ }}`): refused at authoring. */
export function malformedPlaceholders(text: string): string[] {
  return [...text.matchAll(BRACES)].map((match) => match[0]).filter((run) => !new RegExp(`^${PLACEHOLDER.source}$`).test(run));
}

/**
 * The text with every placeholder replaced by its value. Values are inserted as they are: the filled
 * text then meets the record's text rules exactly as typed text does.
 */
export function fill(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (_match, name: string) => values[name] ?? '');
}

/**
 * The values for a template's fields: every required field given, no unknown one, each within its
 * length; issues name `values.<field>`. Optional fields left out are empty.
 */
export function checkValues(issues: IssueCollector, fields: readonly TemplateField[], given: Readonly<Record<string, unknown>> | null | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  const known = new Set(fields.map((field) => field.name));
  for (const name of Object.keys(given ?? {})) {
    if (!known.has(name)) issues.add(['values', name], `The template has no field '${name}'`, 'unknown_field');
  }
  for (const field of fields) {
    const raw = given?.[field.name];
    if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
      if (field.required) issues.add(['values', field.name], `'${field.label}' is required`, 'missing');
      values[field.name] = '';
      continue;
    }
    if (typeof raw !== 'string') {
      issues.add(['values', field.name], 'Must be text', 'invalid_type');
      continue;
    }
    const value = raw.normalize('NFC').trim();
    const max = field.maxLength ?? FIELD_VALUE_MAX;
    if ([...value].length > max) issues.add(['values', field.name], `At most ${max} characters`, 'too_long');
    values[field.name] = value;
  }
  return values;
}
