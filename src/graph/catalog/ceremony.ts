import { entry } from './entry.js';
import {
  CancelSignatureMethodDocument,
  FinalizeSignatureDocument,
  GetSignatureExecutionDocument,
  OpenSecretInputDocument,
  RefreshSignatureMethodDocument,
  StartSignatureExecutionDocument,
  StartSignatureMethodDocument,
  SubmitSignatureMethodDocument,
} from './generated.js';

/**
 * The signature ceremony: executions, methods and finalize. `recordType: notarization` makes an
 * execution operation answer not_found for a record of another type.
 */
export const ceremony = {
  startExecution: entry('ceremony.startExecution', StartSignatureExecutionDocument, (data) => data.startSignatureExecution),
  getExecution: entry('ceremony.getExecution', GetSignatureExecutionDocument, (data) => data.signatureExecution),
  finalize: entry('ceremony.finalize', FinalizeSignatureDocument, (data) => data.finalizeSignature),
  startMethod: entry('ceremony.startMethod', StartSignatureMethodDocument, (data) => data.startSignatureMethod),
  submitMethod: entry('ceremony.submitMethod', SubmitSignatureMethodDocument, (data) => data.submitSignatureMethod),
  refreshMethod: entry('ceremony.refreshMethod', RefreshSignatureMethodDocument, (data) => data.refreshSignatureMethod),
  cancelMethod: entry('ceremony.cancelMethod', CancelSignatureMethodDocument, (data) => data.cancelSignatureMethod),
  openSecretInput: entry('ceremony.openSecretInput', OpenSecretInputDocument, (data) => data.openSecretInput),
};
