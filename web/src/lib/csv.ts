/** One CSV line (RFC 4180): a value with a comma, quote or line break is quoted, its quotes doubled. */
function csvLine(values: readonly (string | number | null | undefined)[]): string {
  return values.map((value) => {
    const text = value === null || value === undefined ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }).join(',');
}

/** A CSV file from its header and rows, CRLF-terminated as RFC 4180 writes it. */
export function csvText(header: readonly string[], rows: readonly (readonly (string | number | null | undefined)[])[] = []): string {
  return [header, ...rows].map((row) => `${csvLine(row)}\r\n`).join('');
}

/** Saves text made on this device as a file: an object URL behind a download link, revoked after the click. */
export function saveText(filename: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
