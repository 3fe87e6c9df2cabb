/** What the record routes share: their paths, answers and tags, and the listing's filters. */
import { LIMITS } from '../../domain/text-rules.js';
import { MAX_LIST_OFFSET } from '../../domain/records/record-service.js';
import { enumOf, int, jsonBody, nullable, ref, type JsonObject } from '../openapi/helpers.js';
import { API, json, PROTECTED_CREATE, queryParam, type ErrorStatus, type Success } from '../openapi/operation.js';
import { RECORD_STATUSES, RECORD_TYPES } from '../openapi/vocabulary.js';
import type { RestRequest } from '../operation.js';

export const AGR = `${API}/agreements/{agr_id}`;
export const EXEC = `${AGR}/signature-execution`;
export const NOT = `${API}/notarizations/{id_or_ref}`;

export const record = (description = 'The record.'): Success => json('ExternalAgreementResponse', 200, description);
export const created = (description: string): Success => json('ExternalAgreementResponse', 201, description);
export const execution = (description = "The caller's signature execution."): Success => json('SignatureExecutionResponse', 200, description);
export const optionalBody = (schema: string, allowNull: boolean): JsonObject => jsonBody(allowNull ? nullable(ref(schema)) : ref(schema), false);

export const CEREMONY = ['Signature ceremony'];
export const LIFECYCLE = ['Lifecycle'];

/** Creating a record: a `team_id` the caller is not in answers 404 (a team's existence is not told). */
export const TEAM_CREATE: ErrorStatus[] = [...PROTECTED_CREATE, 404];

/** A listing's filters and page (the identity's records, a team's): enumerated, so that a typed client refuses a misspelled status. */
export const listingParams = (): JsonObject[] => [
  queryParam('status', enumOf(RECORD_STATUSES), 'Only records with this status.'),
  queryParam('type', enumOf(RECORD_TYPES), 'Only records of this type.'),
  queryParam('limit', int({ minimum: LIMITS.pageSize.min, maximum: LIMITS.pageSize.max, default: LIMITS.pageSize.default }), `Page size, ${LIMITS.pageSize.min} to ${LIMITS.pageSize.max}.`),
  queryParam('offset', int({ minimum: 0, maximum: MAX_LIST_OFFSET, default: 0 }), `Records to skip, 0 to ${MAX_LIST_OFFSET}.`),
];

/** A listing's filters as `records.list` takes them. */
export const listingQuery = ({ query }: RestRequest) => ({
  status: query.status as string | undefined,
  type: query.type as string | undefined,
  limit: query.limit as number | undefined,
  offset: query.offset as number | undefined,
});

/** A page of records as the contract names it. */
export const agreementsPage = (page: { records: unknown[]; total: number; limit: number; offset: number }) => ({ agreements: page.records, total: page.total, limit: page.limit, offset: page.offset });
