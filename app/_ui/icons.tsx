/**
 * The portal's few pictograms, drawn as SVG in the text colour: a glyph from a font may be missing
 * on the reader's machine and show as an empty box.
 */
const PATHS = {
  browser: 'M3 5h18v14H3z M3 9h18 M6 7h.01 M8.5 7h.01',
  log: 'M5 6h14 M5 10h14 M5 14h14 M5 18h9',
  index: 'M4 4h16v16H4z M4 4l16 16',
  search: 'M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13z M15.5 15.5L20 20',
  mail: 'M3 6h18v12H3z M3 6l9 7l9-7',
  key: 'M8 10a4 4 0 1 0 0 .01z M11.5 12.5L20 12.5 M17 12.5v3 M20 12.5v2',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 32 }: { name: IconName; size?: number }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.6}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
