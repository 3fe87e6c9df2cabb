import { useState, type DragEvent } from 'react';
import { hashFile, type HashedFile } from './lib/hash';

/**
 * A file picker and drop zone that hashes the file in the browser (WebCrypto SHA-256): only the
 * digest and the file's name, type and size leave this component. With `onFile` instead, the file
 * itself goes to the caller (which checks it in the browser, never uploading it).
 */
export function FileDrop({ label, hint, ...take }: { label: string; hint: string } & ({ onHashed: (file: HashedFile) => void } | { onFile: (file: File) => Promise<void> })) {
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const read = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      if ('onFile' in take) await take.onFile(file);
      else take.onHashed(await hashFile(file));
    } catch {
      setError('The file could not be read.');
    } finally {
      setBusy(false);
    }
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    void read(event.dataTransfer.files[0]);
  };

  return (
    <div>
      <label className={`drop-zone${over ? ' over' : ''}`} onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)} onDrop={drop}>
        <strong>{label}</strong>
        <br />
        <span className="muted small">{busy ? ('onFile' in take ? 'Reading…' : 'Hashing…') : hint}</span>
        <input className="visually-hidden" type="file" onChange={(e) => void read(e.target.files?.[0])} />
      </label>
      {error && <p className="field-error" role="alert">{error}</p>}
    </div>
  );
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} kB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}
