import { allows } from '../identity/operation-access.js';
import type { Principal } from '../identity/principal.js';
import type { SharedTransaction } from '../records/record-lock.js';
import { DomainError } from '../shared/errors.js';
import type { TemplateContent } from '../templates/template-draft.js';

/**
 * What `submit: true` runs on each row's draft, in the row's transaction: the API key signs it as
 * its initiator (CeremonyService.signWithApiKey) and submits it (LifecycleService.submit), whose
 * invitations go out after the row commits.
 */
export type BulkSubmitSteps = {
  signAndSubmit: (principal: Principal, recordId: string, bulkSendId: string, within: SharedTransaction) => Promise<void>;
};

/**
 * Whether this caller may submit the drafts of a bulk send from this template, else a 422 naming
 * `submit` that says why: the initiator signs a draft before it is submitted, and the only signature
 * a program can give is the `api_key` method, alone (a count of 1), with a person's key that may
 * create and sign. Bearer and OAuth sessions can never create signature evidence; a team never signs.
 */
export function checkSubmit(caller: Principal, template: TemplateContent): void {
  const refuse = (message: string) => {
    throw DomainError.invalid(['submit'], message, 'not_allowed');
  };
  if (caller.kind !== 'api_key') {
    refuse("submit: true needs a person's API key: the initiator signs each draft before it is submitted, and a bearer or OAuth session cannot create signature evidence. Leave submit out to make drafts, then sign and submit each");
  }
  if (caller.kind === 'api_key' && caller.teamKey) refuse("submit: true needs a person's API key: a team's key never signs");
  if (!allows(caller, 'lifecycle.submit') || !allows(caller, 'ceremony.finalize')) refuse("submit: true needs an API key with the 'create' and 'verify' scopes: it signs and submits each draft");
  if (template.defaults.requiredSignatureMethodCount !== 1) {
    refuse(`submit: true signs with the api_key method alone: the template asks for ${template.defaults.requiredSignatureMethodCount} signature methods`);
  }
}
