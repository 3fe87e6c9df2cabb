import { PDF } from '@libpdf/core';

/** The files embedded in a PDF (name -> bytes), e.g. sealed-metadata.json and audit-trail.json. */
export async function readAttachments(pdf: Uint8Array): Promise<Map<string, Uint8Array>> {
  const document = await PDF.load(pdf);
  const files = new Map<string, Uint8Array>();
  for (const name of document.attachments.list().keys()) {
    const bytes = document.attachments.get(name);
    if (bytes) files.set(name, bytes);
  }
  return files;
}
