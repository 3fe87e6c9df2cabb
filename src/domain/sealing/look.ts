/** Shared look of every sealed artifact: one restrained accent, quiet greys, the same words. */
export const PALETTE = {
  ink: { r: 28, g: 32, b: 38 },
  muted: { r: 98, g: 106, b: 118 },
  faint: { r: 160, g: 166, b: 175 },
  rule: { r: 222, g: 226, b: 231 },
  paper: { r: 250, g: 250, b: 247 },
  panel: { r: 243, g: 245, b: 246 },
  accent: { r: 22, g: 84, b: 98 },
  accentSoft: { r: 226, g: 238, b: 240 },
} as const;

/** The share card's size in pixels (the Open Graph 1.91:1 shape). */
export const SHARE_CARD_WIDTH = 1200;
export const SHARE_CARD_HEIGHT = 630;

export function recordTypeLabel(recordType: string): string {
  switch (recordType) {
    case 'agreement':
      return 'Agreement';
    case 'declaration':
      return 'Declaration';
    case 'witnessed_agreement':
      return 'Witnessed agreement';
    case 'notarization':
      return 'Notarization';
    default:
      return recordType.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
  }
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "23 November 2026, 01:20 UTC": the same words in every artifact, never the machine's locale. */
export function formatUtc(date: Date, withSeconds = false): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}${withSeconds ? `:${pad(date.getUTCSeconds())}` : ''}`;
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${time} UTC`;
}

export function css({ r, g, b }: { r: number; g: number; b: number }, alpha = 1): string {
  return alpha === 1 ? `rgb(${r}, ${g}, ${b})` : `rgba(${r}, ${g}, ${b}, ${alpha})`;
}
