// Derived from src/graph/catalog/*.graphql by scripts/codegen-catalog.mjs (npm run codegen); do not edit.
import { entry } from './entry.js';
import {
  AcceptTeamInvitationDocument,
  AmendAgreementDocument,
  AuthenticationStatusDocument,
  CancelAgreementDocument,
  CancelSignatureMethodDocument,
  CompleteWithoutParticipantDocument,
  CreateAgreementDocument,
  CreateApiKeyDocument,
  CreateCardTicketDocument,
  CreateDeclarationDocument,
  CreateDocumentTicketDocument,
  CreateExportDocument,
  CreateNotarizationDocument,
  CreateRecordFromTemplateDocument,
  CreateTeamApiKeyDocument,
  CreateTeamDocument,
  CreateTeamWebhookDocument,
  CreateTemplateDocument,
  CreateWebhookDocument,
  DeclineAgreementDocument,
  DeclineTeamInvitationDocument,
  DeleteTeamDocument,
  DeleteTemplateDocument,
  DeleteWebhookDocument,
  DisconnectConnectorDocument,
  FinalizeSignatureDocument,
  GetBulkSendDocument,
  GetCounterDocument,
  GetPublicRecordDocument,
  GetRecordAuditTrailDocument,
  GetRecordDocument,
  GetRecordDocumentFileDocument,
  GetRecordExportDocument,
  GetShareCardFileDocument,
  GetSignatureExecutionDocument,
  GetTeamDocument,
  GetTemplateDocument,
  GetWebhookDocument,
  InviteTeamMemberDocument,
  IssueExportDownloadDocument,
  LinkContactPointDocument,
  ListApiKeysDocument,
  ListBulkSendsDocument,
  ListConnectorsDocument,
  ListContactPointsDocument,
  ListRecordExportsDocument,
  ListTeamApiKeysDocument,
  ListTeamInvitationsDocument,
  ListTeamMembersDocument,
  ListTeamWebhooksDocument,
  ListTeamsDocument,
  ListTemplatesDocument,
  ListWebhookDeliveriesDocument,
  ListWebhooksDocument,
  OpenSecretInputDocument,
  OpenSignInSecretInputDocument,
  PreviewTeamInvitationDocument,
  ReceiveMessengerUpdateDocument,
  RedeemCardTicketDocument,
  RedeemDocumentTicketDocument,
  RedeliverWebhookDeliveryDocument,
  RefreshSignatureMethodDocument,
  RemoveTeamMemberDocument,
  ReplaceWitnessDocument,
  RequestOtpDocument,
  RescindAgreementDocument,
  ResendInvitationDocument,
  ResolveCounterDocument,
  RevokeApiKeyDocument,
  RevokeTeamApiKeyDocument,
  RevokeTeamInvitationDocument,
  RotateWebhookSecretDocument,
  SetRemindersDocument,
  SignOutDocument,
  StartBulkSendDocument,
  StartSignatureExecutionDocument,
  StartSignatureMethodDocument,
  SubmitAgreementDocument,
  SubmitCounterDocument,
  SubmitSignatureMethodDocument,
  TeamActivityDocument,
  TestWebhookDocument,
  UpdateAgreementDocument,
  UpdateTeamDocument,
  UpdateTeamMemberDocument,
  UpdateTemplateDocument,
  UpdateWebhookDocument,
  VerifyMcpAuthenticationDocument,
  VerifyOtpDocument,
  VerifyRecordDocument,
  WaiveCoNotarizerDocument,
  WaiveWitnessDocument,
  WithdrawCounterDocument,
} from './generated.js';

/** What a sealed record became: its audit trail, the signed PDF, the share card and its tickets. */
export const artifacts = {
  getAuditTrail: entry('artifacts.getAuditTrail', GetRecordAuditTrailDocument, (data) => data.recordAuditTrail),
  getDocument: entry('artifacts.getDocument', GetRecordDocumentFileDocument, (data) => data.recordDocumentFile),
  getCard: entry('artifacts.getCard', GetShareCardFileDocument, (data) => data.shareCardFile),
  createCardTicket: entry('artifacts.createCardTicket', CreateCardTicketDocument, (data) => data.createCardTicket),
  redeemCardTicket: entry('artifacts.redeemCardTicket', RedeemCardTicketDocument, (data) => data.redeemCardTicket),
  createDocumentTicket: entry('artifacts.createDocumentTicket', CreateDocumentTicketDocument, (data) => data.createDocumentTicket),
  redeemDocumentTicket: entry('artifacts.redeemDocumentTicket', RedeemDocumentTicketDocument, (data) => data.redeemDocumentTicket),
};

/** Many records from one template, made by a job; their progress and failed rows. */
export const bulkSends = {
  start: entry('bulkSends.start', StartBulkSendDocument, (data) => data.startBulkSend),
  get: entry('bulkSends.get', GetBulkSendDocument, (data) => data.bulkSend),
  list: entry('bulkSends.list', ListBulkSendsDocument, (data) => data.bulkSends),
};

/** The signature ceremony: executions, methods and finalize. `recordType: notarization` makes an execution operation answer not_found for a record of another type. */
export const ceremony = {
  getExecution: entry('ceremony.getExecution', GetSignatureExecutionDocument, (data) => data.signatureExecution),
  startExecution: entry('ceremony.startExecution', StartSignatureExecutionDocument, (data) => data.startSignatureExecution),
  startMethod: entry('ceremony.startMethod', StartSignatureMethodDocument, (data) => data.startSignatureMethod),
  submitMethod: entry('ceremony.submitMethod', SubmitSignatureMethodDocument, (data) => data.submitSignatureMethod),
  refreshMethod: entry('ceremony.refreshMethod', RefreshSignatureMethodDocument, (data) => data.refreshSignatureMethod),
  cancelMethod: entry('ceremony.cancelMethod', CancelSignatureMethodDocument, (data) => data.cancelSignatureMethod),
  finalize: entry('ceremony.finalize', FinalizeSignatureDocument, (data) => data.finalizeSignature),
  openSecretInput: entry('ceremony.openSecretInput', OpenSecretInputDocument, (data) => data.openSecretInput),
};

/** Bulk exports of sealed records and their single-use download links. */
export const exports = {
  create: entry('exports.create', CreateExportDocument, (data) => data.createExport),
  get: entry('exports.get', GetRecordExportDocument, (data) => data.recordExport),
  list: entry('exports.list', ListRecordExportsDocument, (data) => data.recordExports),
  issueDownload: entry('exports.issueDownload', IssueExportDownloadDocument, (data) => data.issueExportDownload),
};

/** Sign-in codes, sessions, contact points, API keys and connected assistants. */
export const identity = {
  requestOtp: entry('identity.requestOtp', RequestOtpDocument, (data) => data.requestOtp),
  verifyOtp: entry('identity.verifyOtp', VerifyOtpDocument, (data) => data.verifyOtp),
  listContactPoints: entry('identity.listContactPoints', ListContactPointsDocument, (data) => data.contactPoints),
  linkContactPoint: entry('identity.linkContactPoint', LinkContactPointDocument, (data) => data.linkContactPoint),
  listApiKeys: entry('identity.listApiKeys', ListApiKeysDocument, (data) => data.apiKeys),
  createApiKey: entry('identity.createApiKey', CreateApiKeyDocument, (data) => data.createApiKey),
  revokeApiKey: entry('identity.revokeApiKey', RevokeApiKeyDocument, (data) => data.revokeApiKey),
  signOut: entry('identity.signOut', SignOutDocument, (data) => data.signOut),
  openMcpGrant: entry('identity.openMcpGrant', VerifyMcpAuthenticationDocument, (data) => data.verifyMcpAuthentication),
  openSignInPage: entry('identity.openSignInPage', OpenSignInSecretInputDocument, (data) => data.openSignInSecretInput),
  authenticationStatus: entry('identity.authenticationStatus', AuthenticationStatusDocument, (data) => data.authenticationStatus),
  listConnectors: entry('identity.listConnectors', ListConnectorsDocument, (data) => data.connectors),
  disconnectConnector: entry('identity.disconnectConnector', DisconnectConnectorDocument, (data) => data.disconnectConnector),
};

/** Inbound platform calls: the update's keys belong to the platform and go on as sent. */
export const inbound = {
  receiveMessengerUpdate: entry('inbound.receiveMessengerUpdate', ReceiveMessengerUpdateDocument, (data) => data.receiveMessengerUpdate),
};

/** Lifecycle moves: submit, declines, counters, amendments, cancellations, waivers, resends. */
export const lifecycle = {
  submit: entry('lifecycle.submit', SubmitAgreementDocument, (data) => data.submitAgreement),
  decline: entry('lifecycle.decline', DeclineAgreementDocument, (data) => data.declineAgreement),
  rescind: entry('lifecycle.rescind', RescindAgreementDocument, (data) => data.rescindAgreement),
  /** A draft is cancelled in place (cancelled_draft); a sealed record gets a mutual cancellation draft. */
  cancel: entry('lifecycle.cancel', CancelAgreementDocument, (data) => data.cancelAgreement),
  amend: entry('lifecycle.amend', AmendAgreementDocument, (data) => data.amendAgreement),
  submitCounter: entry('lifecycle.submitCounter', SubmitCounterDocument, (data) => data.submitCounter),
  getCounter: entry('lifecycle.getCounter', GetCounterDocument, (data) => data.counter),
  resolveCounter: entry('lifecycle.resolveCounter', ResolveCounterDocument, (data) => data.resolveCounter),
  withdrawCounter: entry('lifecycle.withdrawCounter', WithdrawCounterDocument, (data) => data.withdrawCounter),
  completeWithoutParticipant: entry('lifecycle.completeWithoutParticipant', CompleteWithoutParticipantDocument, (data) => data.completeWithoutParticipant),
  waiveWitness: entry('lifecycle.waiveWitness', WaiveWitnessDocument, (data) => data.waiveWitness),
  waiveCoNotarizer: entry('lifecycle.waiveCoNotarizer', WaiveCoNotarizerDocument, (data) => data.waiveCoNotarizer),
  replaceWitness: entry('lifecycle.replaceWitness', ReplaceWitnessDocument, (data) => data.replaceWitness),
  resendInvitation: entry('lifecycle.resendInvitation', ResendInvitationDocument, (data) => data.resendInvitation),
};

/** Notarizations of content hashes (their executions are the ceremony's, with `recordType: notarization`). */
export const notarizations = {
  create: entry('notarizations.create', CreateNotarizationDocument, (data) => data.createNotarization),
};

/** Notarizations are records: read through the record query, refused when the record is of another type. */
export const records = {
  get: entry('records.get', GetRecordDocument, (data) => data.record),
  createAgreement: entry('records.createAgreement', CreateAgreementDocument, (data) => data.createAgreement),
  createDeclaration: entry('records.createDeclaration', CreateDeclarationDocument, (data) => data.createDeclaration),
  update: entry('records.update', UpdateAgreementDocument, (data) => data.updateAgreement),
  /** Reminders to participants who have not signed, off or on (initiator or team admin). */
  setReminders: entry('records.setReminders', SetRemindersDocument, (data) => data.setReminders),
};

/** Teams, their members and invitations, their activity log, keys and webhooks. */
export const teams = {
  list: entry('teams.list', ListTeamsDocument, (data) => data.teams),
  get: entry('teams.get', GetTeamDocument, (data) => data.team),
  create: entry('teams.create', CreateTeamDocument, (data) => data.createTeam),
  update: entry('teams.update', UpdateTeamDocument, (data) => data.updateTeam),
  delete: entry('teams.delete', DeleteTeamDocument, (data) => data.deleteTeam),
  members: entry('teams.members', ListTeamMembersDocument, (data) => data.teamMembers),
  updateMember: entry('teams.updateMember', UpdateTeamMemberDocument, (data) => data.updateTeamMember),
  removeMember: entry('teams.removeMember', RemoveTeamMemberDocument, (data) => data.removeTeamMember),
  invite: entry('teams.invite', InviteTeamMemberDocument, (data) => data.inviteTeamMember),
  invitations: entry('teams.invitations', ListTeamInvitationsDocument, (data) => data.teamInvitations),
  revokeInvitation: entry('teams.revokeInvitation', RevokeTeamInvitationDocument, (data) => data.revokeTeamInvitation),
  previewInvitation: entry('teams.previewInvitation', PreviewTeamInvitationDocument, (data) => data.teamInvitation),
  acceptInvitation: entry('teams.acceptInvitation', AcceptTeamInvitationDocument, (data) => data.acceptTeamInvitation),
  declineInvitation: entry('teams.declineInvitation', DeclineTeamInvitationDocument, (data) => data.declineTeamInvitation),
  activity: entry('teams.activity', TeamActivityDocument, (data) => data.teamActivity),
  listApiKeys: entry('teams.listApiKeys', ListTeamApiKeysDocument, (data) => data.teamApiKeys),
  createApiKey: entry('teams.createApiKey', CreateTeamApiKeyDocument, (data) => data.createTeamApiKey),
  revokeApiKey: entry('teams.revokeApiKey', RevokeTeamApiKeyDocument, (data) => data.revokeTeamApiKey),
  listWebhooks: entry('teams.listWebhooks', ListTeamWebhooksDocument, (data) => data.teamWebhooks),
  createWebhook: entry('teams.createWebhook', CreateTeamWebhookDocument, (data) => data.createTeamWebhook),
};

/** Templates of a person or a team, and drafts made from them. */
export const templates = {
  list: entry('templates.list', ListTemplatesDocument, (data) => data.templates),
  get: entry('templates.get', GetTemplateDocument, (data) => data.template),
  create: entry('templates.create', CreateTemplateDocument, (data) => data.createTemplate),
  update: entry('templates.update', UpdateTemplateDocument, (data) => data.updateTemplate),
  delete: entry('templates.delete', DeleteTemplateDocument, (data) => data.deleteTemplate),
  createRecord: entry('templates.createRecord', CreateRecordFromTemplateDocument, (data) => data.createRecordFromTemplate),
};

/** Public verification and the public record: no credentials. */
export const verification = {
  getPublicRecord: entry('verification.getPublicRecord', GetPublicRecordDocument, (data) => data.publicRecord),
  verifyRecord: entry('verification.verifyRecord', VerifyRecordDocument, (data) => data.verifyRecord),
};

/** Webhook endpoints of the caller's identity and their deliveries. */
export const webhooks = {
  list: entry('webhooks.list', ListWebhooksDocument, (data) => data.webhooks),
  get: entry('webhooks.get', GetWebhookDocument, (data) => data.webhook),
  create: entry('webhooks.create', CreateWebhookDocument, (data) => data.createWebhook),
  update: entry('webhooks.update', UpdateWebhookDocument, (data) => data.updateWebhook),
  delete: entry('webhooks.delete', DeleteWebhookDocument, (data) => data.deleteWebhook),
  rotateSecret: entry('webhooks.rotateSecret', RotateWebhookSecretDocument, (data) => data.rotateWebhookSecret),
  deliveries: entry('webhooks.deliveries', ListWebhookDeliveriesDocument, (data) => data.webhookDeliveries),
  redeliver: entry('webhooks.redeliver', RedeliverWebhookDeliveryDocument, (data) => data.redeliverWebhookDelivery),
  test: entry('webhooks.test', TestWebhookDocument, (data) => data.testWebhook),
};
