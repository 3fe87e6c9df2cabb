import { registerEnumType } from 'type-graphql';
import { CONTACT_POINT_TYPES, PARTICIPANT_ROLES, RECORD_STATUSES, RECORD_TYPES, SIGNING_ORDERS } from '../../domain/records/entities.js';
import { OTP_PURPOSES } from '../../domain/identity/entities.js';
import { API_KEY_SCOPES } from '../../domain/identity/principal.js';
import { CONNECTOR_SCOPES } from '../../domain/identity/connector-grants.js';
import { PARTICIPANT_ACTIONS, RECORD_ACTIONS } from '../../domain/records/lifecycle.js';

/** GraphQL enums use the product's own lowercase values, identical to REST. */
export function asEnum<const T extends readonly string[]>(values: T): { [K in T[number]]: K } {
  return Object.fromEntries(values.map((value) => [value, value])) as { [K in T[number]]: K };
}

export const RecordTypeEnum = asEnum(RECORD_TYPES);
export const RecordStatusEnum = asEnum(RECORD_STATUSES);
export const ParticipantRoleEnum = asEnum(PARTICIPANT_ROLES);
export const ContactPointTypeEnum = asEnum(CONTACT_POINT_TYPES);
export const PartyContactPointTypeEnum = asEnum(['email', 'messenger'] as const);
export const OtpPurposeEnum = asEnum(OTP_PURPOSES);
export const ApiKeyScopeEnum = asEnum(API_KEY_SCOPES);
export const ConnectorScopeEnum = asEnum(CONNECTOR_SCOPES);
export const InitiatorSignatureStatusEnum = asEnum(['not_started', 'in_progress', 'finalized'] as const);
export const RecordActionEnum = asEnum(RECORD_ACTIONS);
export const ParticipantActionEnum = asEnum(PARTICIPANT_ACTIONS);
export const SigningOrderEnum = asEnum(SIGNING_ORDERS);

registerEnumType(RecordTypeEnum, { name: 'RecordType', description: 'agreement, declaration, witnessed_agreement or notarization' });
registerEnumType(RecordStatusEnum, { name: 'RecordStatus', description: 'Lifecycle status of a record' });
registerEnumType(ParticipantRoleEnum, { name: 'ParticipantRole' });
registerEnumType(ContactPointTypeEnum, { name: 'ContactPointType' });
registerEnumType(PartyContactPointTypeEnum, { name: 'PartyContactPointType', description: 'How an invited participant is reached' });
registerEnumType(OtpPurposeEnum, { name: 'OtpPurpose', description: 'Each purpose is separate: a code only works where its purpose applies' });
registerEnumType(ApiKeyScopeEnum, { name: 'ApiKeyScope', description: 'Exact, non-hierarchical API key scopes' });
registerEnumType(ConnectorScopeEnum, { name: 'ConnectorScope', description: 'What a hosted assistant connector was granted: record scopes and offline_access' });
registerEnumType(InitiatorSignatureStatusEnum, { name: 'InitiatorSignatureStatus' });
registerEnumType(RecordActionEnum, { name: 'RecordAction', description: 'A move a reader may ask for on a record, as the lifecycle table offers it' });
registerEnumType(ParticipantActionEnum, { name: 'ParticipantAction', description: "An initiator's move on one participant, as the lifecycle table offers it" });
registerEnumType(SigningOrderEnum, {
  name: 'SigningOrder',
  description: 'parallel: every participant is invited at submission; sequential: the parties one at a time in list order, each invited when the one before signed, then the witnesses',
});
