import { isValidEmail, normalizeEmail, normalizeMessengerHandle } from '../identity/contact-points.js';
import { IssueCollector } from '../shared/errors.js';
import { SIGNING_ORDERS, type ParticipantContactPointType, type RecordType, type SigningOrder } from './entities.js';
import { BODY_LIMITS, LIMITS, countCharacters, countWords, normalizeText, rangeOf } from '../text-rules.js';
import { cleanUnicode, lineIssue, optionalLine, textIssue } from '../shared/unicode.js';

export type NamedPartyInput = {
  displayName: string;
  contactPointType?: 'email' | 'messenger' | null;
  contactPointValue: string;
};

export type CreateRecordInput = {
  type?: RecordType | null;
  title?: string | null;
  summary?: string | null;
  body: string;
  jurisdiction?: string | null;
  parties?: NamedPartyInput[] | null;
  witnesses?: NamedPartyInput[] | null;
  onChainFullText: boolean;
  onChainIncludeVerifiedParties: boolean;
  lapseDays?: number | null;
  requiredSignatureMethodCount?: number | null;
  /** Invitations all at once (default) or one party at a time in list order; fixed once created. */
  signingOrder?: SigningOrder | null;
  /** Reminders to participants who have not signed: on unless `enabled` is false; days null: the service defaults. */
  reminders?: ReminderInput | null;
  /** The team that will own it (the caller's `member` role needed); none: the caller's own. */
  teamId?: string | null;
};

/** A draft edit: only the given fields change; `null` clears an optional field. */
export type UpdateRecordInput = { [K in Exclude<keyof CreateRecordInput, 'type' | 'teamId' | 'signingOrder' | 'reminders'>]?: CreateRecordInput[K] | null };


export type NormalizedParty = {
  displayName: string;
  contactPointType: ParticipantContactPointType;
  contactPointValue: string;
};

export function validateBody(issues: IssueCollector, body: unknown, path: string[] = ['body']): void {
  if (typeof body !== 'string') {
    issues.add(path, 'Body is required', 'missing');
    return;
  }
  const problem = textIssue(body);
  if (problem) {
    issues.add(path, problem.message, problem.type);
    return;
  }
  // Kept as sent (in Unicode NFC), so capped as sent and as stored too (what every answer's schema
  // declares for it): NFC makes some characters two (U+0958 is U+0915 U+093C).
  if (countCharacters(body) > BODY_LIMITS.maxRawCharacters || countCharacters(body.normalize('NFC')) > BODY_LIMITS.maxRawCharacters) {
    issues.add(path, `Body must have at most ${BODY_LIMITS.maxRawCharacters} characters as sent and as stored (Unicode NFC)`, 'too_long');
    return;
  }
  const normalized = normalizeText(body);
  const characters = countCharacters(normalized);
  const words = countWords(normalized);
  if (characters < BODY_LIMITS.minCharacters) {
    issues.add(path, `Body must have at least ${BODY_LIMITS.minCharacters} characters after normalization`, 'too_short');
  } else if (characters > BODY_LIMITS.maxCharacters) {
    issues.add(path, `Body must have at most ${BODY_LIMITS.maxCharacters} characters after normalization`, 'too_long');
  }
  if (words < BODY_LIMITS.minWords) {
    issues.add(path, `Body must have at least ${BODY_LIMITS.minWords} words`, 'too_few_words');
  } else if (words > BODY_LIMITS.maxWords) {
    issues.add(path, `Body must have at most ${BODY_LIMITS.maxWords} words`, 'too_many_words');
  }
}

/** Optional single-line fields of records (titles, summaries, notes): see optionalLine. */
export const optionalText = optionalLine;

export function validateLapseDays(issues: IssueCollector, value: number | null | undefined): number | null {
  if (value == null) return null;
  if (!Number.isInteger(value) || value < LIMITS.lapseDays.min || value > LIMITS.lapseDays.max) {
    issues.add(['lapseDays'], `Must be a whole number of days from ${LIMITS.lapseDays.min} to ${LIMITS.lapseDays.max}`, 'out_of_range');
  }
  return value;
}

export type ReminderInput = { enabled?: boolean | null; everyDays?: number | null; beforeExpiryDays?: number | null };

/** A record's own reminder schedule: days between reminders 1..30, days before expiry 0..30 (0: no such reminder); null: the service default. */
export function validateReminders(issues: IssueCollector, value: ReminderInput | null | undefined): { remindersEnabled: boolean; reminderEveryDays: number | null; reminderBeforeExpiryDays: number | null } {
  const days = (field: 'everyDays' | 'beforeExpiryDays', { min, max }: { min: number; max: number }): number | null => {
    const given = value?.[field];
    if (given == null) return null;
    if (!Number.isInteger(given) || given < min || given > max) issues.add(['reminders', field], `Must be a whole number of days from ${min} to ${max}`, 'out_of_range');
    return given;
  };
  return {
    remindersEnabled: value?.enabled !== false,
    reminderEveryDays: days('everyDays', LIMITS.reminderEveryDays),
    reminderBeforeExpiryDays: days('beforeExpiryDays', LIMITS.reminderBeforeExpiryDays),
  };
}

export function validateMethodCount(issues: IssueCollector, value: number | null | undefined): number {
  if (value == null) return 1;
  const { min, max } = LIMITS.signatureMethods;
  if (!Number.isInteger(value) || value < min || value > max) {
    issues.add(['requiredSignatureMethodCount'], `Must be ${rangeOf(LIMITS.signatureMethods).join(', ').replace(/, (\d+)$/, ' or $1')}`, 'invalid_enum');
  }
  return value;
}

export function validateSigningOrder(issues: IssueCollector, value: string | null | undefined): SigningOrder {
  if (value == null) return 'parallel';
  if (!(SIGNING_ORDERS as readonly string[]).includes(value)) issues.add(['signingOrder'], `Must be one of ${SIGNING_ORDERS.join(', ')}`, 'invalid_enum');
  return value as SigningOrder;
}

export function normalizeParties(
  issues: IssueCollector,
  field: string,
  inputs: NamedPartyInput[] | null | undefined,
  max: number,
  options: { rejectAliases?: boolean } = {},
): NormalizedParty[] {
  const list = inputs ?? [];
  if (list.length > max) issues.add([field], `At most ${max} ${field}`, 'too_many');
  return list.map((input, index) => {
    const displayName = cleanUnicode(input.displayName ?? '').trim();
    const length = [...displayName].length;
    const problem = lineIssue(displayName);
    if (problem) issues.add([field, index, 'displayName'], problem.message, problem.type);
    else if (length < 1 || length > LIMITS.displayName) {
      issues.add([field, index, 'displayName'], `Display name must have 1 to ${LIMITS.displayName} characters`, length < 1 ? 'too_short' : 'too_long');
    }
    const type = input.contactPointType ?? 'email';
    let value = input.contactPointValue ?? '';
    if (type === 'email') {
      value = normalizeEmail(value);
      if (!isValidEmail(value)) issues.add([field, index, 'contactPointValue'], 'Enter a valid email address', 'invalid_email');
      else if (options.rejectAliases && value.split('@')[0]?.includes('+')) {
        issues.add([field, index, 'contactPointValue'], 'Use the address without a +alias', 'alias_not_allowed');
      }
    } else if (type === 'messenger') {
      value = normalizeMessengerHandle(value);
      if (!/^[a-z0-9_]{3,64}$|^[0-9]{3,20}$/u.test(value)) {
        issues.add([field, index, 'contactPointValue'], 'Enter a messenger username (letters, digits, _) or numeric chat id', 'invalid_handle');
      }
    } else {
      issues.add([field, index, 'contactPointType'], "Must be 'email' or 'messenger'", 'invalid_enum');
    }
    return { displayName, contactPointType: type, contactPointValue: value };
  });
}

/** Rules that depend on the record type and on the whole participant list. */
export function validateParticipantsForType(
  issues: IssueCollector,
  type: RecordType,
  parties: NormalizedParty[],
  witnesses: NormalizedParty[],
  initiatorContact: { type: string; value: string } | null,
): void {
  if (type === 'declaration' && parties.length > 0) {
    issues.add(['parties'], 'A declaration has a single declarant: no other parties', 'not_allowed');
  }
  if ((type === 'agreement' || type === 'notarization') && witnesses.length > 0) {
    issues.add(['witnesses'], `A ${type} has no witnesses: use type witnessed_agreement`, 'not_allowed');
  }
  const seen = new Map<string, string>();
  if (initiatorContact) seen.set(`${initiatorContact.type}:${initiatorContact.value}`, 'the initiator');
  const check = (field: 'parties' | 'witnesses', list: NormalizedParty[]) =>
    list.forEach((party, index) => {
      const key = `${party.contactPointType}:${party.contactPointValue}`;
      const holder = seen.get(key);
      if (holder) {
        issues.add([field, index, 'contactPointValue'], `This contact point is already used by ${holder}`, 'duplicate');
      } else {
        seen.set(key, `${field}[${index}]`);
      }
    });
  check('parties', parties);
  check('witnesses', witnesses);
}
