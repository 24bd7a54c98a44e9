/**
 * The live view's own keyboard shortcuts. Every other key goes to the remote page while the view has
 * focus, so these use a chord pages rarely need (Alt+Shift, matched on the physical key so that a
 * layout or macOS's Option characters do not matter); they work whether or not the view has focus.
 */
export type ShortcutAction =
  'address' | 'new-tab' | 'close-tab' | 'next-tab' | 'previous-tab' | 'back' | 'forward' | 'reload' | 'control' | 'help';

export const SHORTCUTS: readonly { action: ShortcutAction; code: string; keys: string; does: string }[] = [
  { action: 'address', code: 'KeyL', keys: 'Alt+Shift+L', does: 'Go to the address bar' },
  { action: 'new-tab', code: 'KeyT', keys: 'Alt+Shift+T', does: 'Open a new tab' },
  { action: 'close-tab', code: 'KeyW', keys: 'Alt+Shift+W', does: 'Close the tab' },
  { action: 'next-tab', code: 'BracketRight', keys: 'Alt+Shift+]', does: 'Next tab' },
  { action: 'previous-tab', code: 'BracketLeft', keys: 'Alt+Shift+[', does: 'Previous tab' },
  { action: 'back', code: 'ArrowLeft', keys: 'Alt+Shift+←', does: 'Back' },
  { action: 'forward', code: 'ArrowRight', keys: 'Alt+Shift+→', does: 'Forward' },
  { action: 'reload', code: 'KeyR', keys: 'Alt+Shift+R', does: 'Reload' },
  { action: 'control', code: 'KeyC', keys: 'Alt+Shift+C', does: 'Ask for control, or give it up' },
  { action: 'help', code: 'Slash', keys: 'Alt+Shift+/', does: 'Show these shortcuts' },
];

const BY_CODE = new Map(SHORTCUTS.map((s) => [s.code, s.action]));

/** The shortcut a key press is, if it is one. */
export function shortcutOf(e: {
  code: string;
  altKey: boolean;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
}): ShortcutAction | null {
  if (!e.altKey || !e.shiftKey || e.ctrlKey || e.metaKey) return null;
  return BY_CODE.get(e.code) ?? null;
}
