/**
 * How much of a page or of a list a tool hands back: a model's context is small and shared, so long
 * output is cut, at a line where it can be, with a note saying what was left out and how to see more.
 */
export type Limits = {
  /** Characters of an accessibility snapshot (and of Markdown) a result carries at most. */
  maxTextChars: number;
  /** Bytes of an image a result carries at most, before base64. */
  maxImageBytes: number;
};

export const DEFAULT_LIMITS: Limits = {
  maxTextChars: 40_000,
  maxImageBytes: 800_000,
};

/**
 * `text` at most `max` characters long: whole when it fits, else cut at the last line break within
 * the limit (or at the limit when the first line alone is longer) and followed by `note(omitted)`.
 */
export function cutText(text: string, max: number, note: (omittedChars: number) => string): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const lineEnd = text.lastIndexOf('\n', max);
  const end = lineEnd > max / 2 ? lineEnd : max;
  const kept = text.slice(0, end);
  return { text: `${kept}\n${note(text.length - end)}`, cut: true };
}

/** The note under a cut snapshot. */
export const snapshotNote = (omitted: number) =>
  `[Snapshot cut: ${omitted.toLocaleString('en')} more characters of the page's accessibility tree were left out. ` +
  'Scroll or act on the elements shown, then take browser_snapshot again to see the rest.]';

/** The note under cut Markdown (a page's text, search results). */
export const markdownNote = (omitted: number) =>
  `[Cut: ${omitted.toLocaleString('en')} more characters were left out to keep this result small.]`;
