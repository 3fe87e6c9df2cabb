import type { FoundAnchor } from './anchoring/chain.js';
import { hashToBytes32 } from './anchoring/merkle.js';
import { describeRpc, RegistryReader } from './anchoring/registry-reader.js';
import { inspectPades, type PadesReport, type SignerCertificate } from './pades.js';
import { extractMetadataAttachment, METADATA_ATTACHMENT, normalizeSha256, readSealedMetadata, sha256Tag, type SealedMetadata } from './sealed-metadata.js';

/**
 * The offline verification of a sealed record: the PDF (or a notarization's sealed metadata plus the
 * file) and a chain node, nothing from our service. Each check reports a clear reason; the verdict is
 * `verified` only when every check holds. Imports nothing that needs the database or the config.
 */
export type CheckName = 'signature' | 'seal_key' | 'validity' | 'trust' | 'metadata' | 'content' | 'anchor';

export type Check = { check: CheckName; ok: boolean; detail: string };

export type VerificationReport = {
  verdict: 'verified' | 'failed';
  /** The first failing check's reason (null when verified). */
  reason: string | null;
  checks: Check[];
  metadataHash: string | null;
  /** The record the sealed metadata names (its AGR reference), when it could be read. */
  reference?: string | null;
  signer: SignerCertificate | null;
  /** For a sealed PDF: its PAdES level, timestamps, DSS contents, validity in time and trust. */
  pades?: Pick<PadesReport, 'level' | 'revisions' | 'sealRevision' | 'certification' | 'timestamps' | 'dss' | 'validity' | 'trust'>;
  anchor: {
    chainId: number;
    registryAddress: string;
    txHash: string;
    blockNumber: string;
    anchoredAt: string;
    root: string;
    batchSize: number;
    proof: string[];
  } | null;
};

export type ChainOptions = {
  rpcUrl: string;
  /** Overrides the metadata's anchor.registry_address. */
  registryAddress?: string;
};

function report(checks: Check[], extra: Omit<VerificationReport, 'verdict' | 'reason' | 'checks'>): VerificationReport {
  const failed = checks.find((c) => !c.ok);
  return { verdict: failed ? 'failed' : 'verified', reason: failed ? failed.detail : null, checks, ...extra };
}

function metadataCheck(metadata: SealedMetadata): Check {
  return metadata.canonical
    ? { check: 'metadata', ok: true, detail: `${METADATA_ATTACHMENT} is RFC 8785 canonical JSON; metadata_hash ${metadata.metadataHash}` }
    : { check: 'metadata', ok: false, detail: `${METADATA_ATTACHMENT} is not RFC 8785 canonical JSON, so its hash cannot be the sealed one` };
}

async function anchorCheck(metadata: SealedMetadata, chain: ChainOptions): Promise<{ check: Check; anchor: VerificationReport['anchor'] }> {
  const registryAddress = chain.registryAddress ?? metadata.anchor?.registryAddress;
  if (!registryAddress) {
    return {
      check: { check: 'anchor', ok: false, detail: 'no registry address: give --registry (the sealed metadata has no anchor.registry_address)' },
      anchor: null,
    };
  }
  let reader: RegistryReader;
  let found: FoundAnchor | null;
  try {
    reader = await RegistryReader.connect({ rpcUrl: chain.rpcUrl, registryAddress });
    if (metadata.anchor?.chainId !== undefined && metadata.anchor.chainId !== reader.chainId) {
      return {
        check: {
          check: 'anchor',
          ok: false,
          detail: `the record was anchored on chain ${metadata.anchor.chainId}${metadata.anchor.network ? ` (${metadata.anchor.network})` : ''} but ${describeRpc(chain.rpcUrl)} serves chain ${reader.chainId}`,
        },
        anchor: null,
      };
    }
    found = await reader.findAnchor(hashToBytes32(metadata.metadataHash));
  } catch (error) {
    return { check: { check: 'anchor', ok: false, detail: `the chain could not be checked: ${(error as Error).message}` }, anchor: null };
  }
  if (!found) {
    return {
      check: {
        check: 'anchor',
        ok: false,
        detail: `metadata_hash ${metadata.metadataHash} is not anchored in registry ${reader.registryAddress} on chain ${reader.chainId}`,
      },
      anchor: null,
    };
  }
  const how = found.leaves.length === 1 ? 'directly' : `in a batch of ${found.leaves.length} (Merkle root ${found.root}, proof of ${found.proof.length} nodes checked)`;
  return {
    check: {
      check: 'anchor',
      ok: true,
      detail: `anchored ${how} at ${found.anchoredAt.toISOString()} in transaction ${found.txHash} (block ${found.blockNumber}) of registry ${reader.registryAddress} on chain ${reader.chainId}`,
    },
    anchor: {
      chainId: reader.chainId,
      registryAddress: reader.registryAddress,
      txHash: found.txHash,
      blockNumber: found.blockNumber.toString(),
      anchoredAt: found.anchoredAt.toISOString(),
      root: found.root,
      batchSize: found.leaves.length,
      proof: found.proof,
    },
  };
}

/** Verifies a sealed PDF: signatures and timestamps, seal key, validity in time, trust, embedded metadata, anchor (with a chain node). */
export async function verifySealedPdf(
  pdf: Uint8Array,
  options: Partial<ChainOptions> & { sealFingerprint?: string; at?: Date; trust?: Uint8Array[] },
): Promise<VerificationReport> {
  const checks: Check[] = [];
  const pades = await inspectPades(pdf, { at: options.at, trust: options.trust });
  const signer = pades.signer;
  const base = { metadataHash: null, signer, anchor: null, pades: padesSummary(pades) };
  if (!pades.ok) {
    checks.push({ check: 'signature', ok: false, detail: pades.reason ?? 'the signature does not verify' });
    return report(checks, base);
  }
  const stamps = pades.timestamps.map((t) => `${t.kind === 'signature' ? 'signature timestamp' : `document timestamp (revision ${t.revision})`} ${t.detail}`);
  checks.push({
    check: 'signature',
    ok: true,
    detail: `PAdES ${pades.level} ${pades.certification ? `certification signature (DocMDP P=${pades.certification.permissions})` : 'signature'} valid over revision ${pades.sealRevision} of ${pades.revisions}${pades.sealRevision! < pades.revisions ? ' (the later revisions add only validation data and document timestamps)' : ''}, signed by ${signer!.subject} (certificate SHA-256 ${signer!.fingerprint})${stamps.length ? `; ${stamps.join('; ')}` : ''}`,
  });
  const sealed = pdf.subarray(0, pades.sealEnd!);

  let bytes: Uint8Array | null;
  try {
    // Read from the revision the seal signed: later revisions may only add validation data and timestamps.
    bytes = await extractMetadataAttachment(sealed);
  } catch (error) {
    checks.push({ check: 'metadata', ok: false, detail: `the PDF could not be read: ${(error as Error).message}` });
    return report(checks, base);
  }
  if (!bytes) {
    checks.push({ check: 'metadata', ok: false, detail: `the PDF has no embedded ${METADATA_ATTACHMENT}` });
    return report(checks, base);
  }
  let metadata: SealedMetadata;
  try {
    metadata = readSealedMetadata(bytes);
  } catch (error) {
    checks.push({ check: 'metadata', ok: false, detail: (error as Error).message });
    return report(checks, base);
  }

  const expected = [
    options.sealFingerprint ? { from: '--seal-fingerprint', value: normalizeSha256(options.sealFingerprint.replace(/:/g, '')) ?? options.sealFingerprint } : null,
    metadata.sealCertificateSha256 ? { from: 'the sealed metadata (seal.certificate_sha256)', value: metadata.sealCertificateSha256 } : null,
  ].filter((e) => e !== null);
  const mismatch = expected.find((e) => e.value !== signer!.fingerprint);
  checks.push(
    mismatch
      ? { check: 'seal_key', ok: false, detail: `the PDF was signed by another key: certificate SHA-256 ${signer!.fingerprint}, expected ${mismatch.value} from ${mismatch.from}` }
      : expected.length > 0
        ? { check: 'seal_key', ok: true, detail: `the signer is the expected seal key (${expected.map((e) => e.from).join(' and ')})` }
        : { check: 'seal_key', ok: true, detail: 'no expected seal key given (pass --seal-fingerprint to pin it); the signer certificate is reported above' },
  );

  checks.push({ check: 'validity', ok: pades.validity.ok, detail: pades.validity.detail });
  checks.push({ check: 'trust', ok: pades.trust.ok, detail: pades.trust.detail });

  checks.push(metadataCheck(metadata));
  if (!metadata.canonical) return report(checks, { ...base, metadataHash: metadata.metadataHash, reference: referenceOf(metadata) });
  // Without a chain node (an export's manifest verified offline) the anchor is not checked, and said so.
  if (!options.rpcUrl) return report(checks, { ...base, metadataHash: metadata.metadataHash, reference: referenceOf(metadata) });
  const anchored = await anchorCheck(metadata, { ...options, rpcUrl: options.rpcUrl });
  checks.push(anchored.check);
  return report(checks, { ...base, metadataHash: metadata.metadataHash, reference: referenceOf(metadata), anchor: anchored.anchor });
}

function referenceOf(metadata: SealedMetadata): string | null {
  const json = metadata.json as { reference?: unknown } | null;
  return typeof json?.reference === 'string' ? json.reference : null;
}

function padesSummary(pades: PadesReport): VerificationReport['pades'] {
  const { level, revisions, sealRevision, certification, timestamps, dss, validity, trust } = pades;
  return { level, revisions, sealRevision, certification, timestamps, dss, validity, trust };
}

/** Verifies a notarization: its public sealed metadata, the notarized content's hash, the anchor. */
export async function verifyNotarization(
  metadataBytes: Uint8Array,
  content: { file: Uint8Array } | { contentHash: string },
  options: ChainOptions,
): Promise<VerificationReport> {
  const checks: Check[] = [];
  let metadata: SealedMetadata;
  try {
    metadata = readSealedMetadata(metadataBytes);
  } catch (error) {
    checks.push({ check: 'metadata', ok: false, detail: (error as Error).message });
    return report(checks, { metadataHash: null, signer: null, anchor: null });
  }
  checks.push(metadataCheck(metadata));

  const given = 'file' in content ? sha256Tag(content.file).slice('sha256:'.length) : normalizeSha256(content.contentHash);
  const source = 'file' in content ? 'the file' : '--content-hash';
  const match = given ? metadata.contentHashes.find((h) => h.hex === given) : undefined;
  checks.push(
    !given
      ? { check: 'content', ok: false, detail: '--content-hash is not a SHA-256 (sha256:<hex> or 64 hex digits)' }
      : match
        ? { check: 'content', ok: true, detail: `${source} has SHA-256 ${given}, the sealed ${match.path}` }
        : metadata.contentHashes.length === 0
          ? { check: 'content', ok: false, detail: 'the sealed metadata carries no content_hash to compare with' }
          : { check: 'content', ok: false, detail: `${source} has SHA-256 ${given}, which is not the sealed content hash (${metadata.contentHashes.map((h) => h.hex).join(', ')})` },
  );
  if (!metadata.canonical) return report(checks, { metadataHash: metadata.metadataHash, signer: null, anchor: null });
  const anchored = await anchorCheck(metadata, options);
  checks.push(anchored.check);
  return report(checks, { metadataHash: metadata.metadataHash, signer: null, anchor: anchored.anchor });
}
