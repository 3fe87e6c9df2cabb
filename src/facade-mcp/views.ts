import { snakeKeys } from '../graph/transport/case.js';
import type { RecordFieldsFragment, SignatureExecutionFieldsFragment } from '../graph/catalog/generated.js';

/** How identicons travel: metadata only (default), as image content blocks, or as data URIs in the structure. */
export type VisualRepresentation = 'metadata' | 'inline' | 'compatibility_data_uri';

/** An image content block (bytes travel only here, never in structuredContent or the first text block). */
export type ImageBlock = { type: 'image'; data: string; mimeType: string };

/** A link a host can show or open (MCP `resource_link` content): where the evidence of a record is. */
export type ResourceLink = { type: 'resource_link'; uri: string; name: string; title: string; description: string; mimeType: string };

/**
 * The links to a sealed record's evidence: its public verification page (anyone can open it) and,
 * once anchored on a chain with an explorer configured, the transaction there.
 */
export function evidenceLinks(publicBaseUrl: string, reference: string, explorerUrl: string | null | undefined): ResourceLink[] {
  const links: ResourceLink[] = [
    {
      type: 'resource_link',
      uri: new URL(`/verify/${encodeURIComponent(reference)}`, publicBaseUrl).href,
      name: `${reference}-verification`,
      title: `Public verification of ${reference}`,
      description: 'The public page where anyone can check this record, and a document against it, without signing in.',
      mimeType: 'text/html',
    },
  ];
  if (explorerUrl) {
    links.push({
      type: 'resource_link',
      uri: explorerUrl,
      name: `${reference}-chain-transaction`,
      title: `${reference} on the chain`,
      description: 'The transaction that anchored this record, in the chain explorer.',
      mimeType: 'text/html',
    });
  }
  return links;
}

type WithSvg = { svgDataUri?: string | null; kind?: string; altText?: string };

/** Whether the GraphQL documents should select `svgDataUri`. */
export const wantsSvg = (representation: VisualRepresentation | undefined): boolean => representation === 'inline' || representation === 'compatibility_data_uri';

/**
 * Moves identicon data URIs out of a result for `inline` (into image blocks; for `documentOnly`
 * callers, public verification and listings, signature identicons are dropped) and leaves them in
 * for `compatibility_data_uri`. Returns a copy; the input is not changed.
 */
export function takeIdenticons<T>(value: T, representation: VisualRepresentation | undefined, documentOnly: boolean): { value: T; images: ImageBlock[] } {
  const images: ImageBlock[] = [];
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const object = { ...(node as Record<string, unknown>) };
    if ('svgDataUri' in object) {
      const identicon = object as WithSvg;
      if (representation === 'inline' && identicon.svgDataUri && (!documentOnly || identicon.kind === 'document')) {
        const match = /^data:([^;,]+);base64,(.*)$/.exec(identicon.svgDataUri);
        if (match) images.push({ type: 'image', mimeType: match[1]!, data: match[2]! });
      }
      if (representation !== 'compatibility_data_uri') delete object.svgDataUri;
      return object;
    }
    for (const [key, item] of Object.entries(object)) object[key] = visit(item);
    return object;
  };
  return { value: visit(value) as T, images };
}

/** The tool's call to make next: a tool name and its arguments. */
export type NextAction = { tool: string; arguments: Record<string, unknown>; description: string };

/** What a record-returning tool answers: the reference, version, initiator signature state and the way on. */
export function recordResult(record: RecordFieldsFragment, guidance: { nextAction: NextAction | null; humanStep: string | null }) {
  return {
    agr_reference: record.agrReference,
    status: record.status,
    agreement_version: record.currentVersion,
    initiator_signature: snakeKeys<Record<string, unknown> | null>(record.initiatorSignature),
    /** The moves the caller may make on the record now (the lifecycle table's answer): previews refuse any other. */
    available_actions: record.availableActions,
    next_action: guidance.nextAction,
    human_step: guidance.humanStep,
    agreement: snakeKeys<Record<string, unknown>>(record),
  };
}

/** What a ceremony tool answers. */
export function executionResult(
  reference: string,
  execution: SignatureExecutionFieldsFragment,
  initiatorSignature: RecordFieldsFragment['initiatorSignature'] | null,
  guidance: { nextAction: NextAction | null; humanStep: string | null },
) {
  return {
    agr_reference: reference,
    can_finalize: execution.canFinalize,
    initiator_signature: snakeKeys<Record<string, unknown> | null>(initiatorSignature),
    next_action: guidance.nextAction,
    human_step: guidance.humanStep,
    signature_execution: snakeKeys<Record<string, unknown>>(execution),
  };
}
