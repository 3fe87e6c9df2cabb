/** SHA-256 in the browser (WebCrypto): the bytes are read locally and never sent anywhere. */
export async function sha256Hex(data: ArrayBuffer | Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', data);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export type HashedFile = { name: string; type: string; size: number; sha256: string };

export async function hashFile(file: File): Promise<HashedFile> {
  return { name: file.name, type: file.type, size: file.size, sha256: await sha256Hex(await file.arrayBuffer()) };
}

export function isPdf(file: HashedFile): boolean {
  return file.type === 'application/pdf' || file.name.toLowerCase().endsWith('.pdf');
}
