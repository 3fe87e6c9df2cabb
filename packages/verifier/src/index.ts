/**
 * The verifier as a library: the checks `record-verify <sealed.pdf>` and `record-verify --metadata` run, with
 * their report. It runs in Node and in a browser (the service's "check it here" page bundles the same source);
 * the export manifest check, which reads files, is `@record-signing/verifier/manifest`.
 */
export { verifyNotarization, verifySealedPdf, type ChainOptions, type Check, type CheckName, type VerificationReport } from './verify.js';
export type { DssReport, PadesLevel, PadesReport, SignerCertificate, TimestampReport } from './pades.js';
