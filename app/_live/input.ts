import type { ClientMessage, FrameMeta } from '#portal/protocol/live.ts';

/** CDP modifier bits: Alt=1, Ctrl=2, Meta=4, Shift=8. */
export function modifiers(e: { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): number {
  return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
}

const BUTTONS = ['left', 'middle', 'right', 'back', 'forward'] as const;
/** `buttons` bits in the order CDP prefers a held button for a move: left, right, middle, back, forward. */
const HELD: readonly [number, (typeof BUTTONS)[number]][] = [
  [1, 'left'],
  [2, 'right'],
  [4, 'middle'],
  [8, 'back'],
  [16, 'forward'],
];

/** The button a move drags with (what CDP needs for a drag to select), or none. */
export function heldButton(buttons: number): (typeof BUTTONS)[number] | 'none' {
  return HELD.find(([bit]) => (buttons & bit) !== 0)?.[1] ?? 'none';
}

/** Presses within this time and distance of the last one count up, as desktop platforms do. */
export const MULTI_CLICK_MS = 500;
export const MULTI_CLICK_PX = 4;

/**
 * Counts clicks the way the platform does, because Chromium gives a pointerdown a `detail` of 0: a
 * press of the same button close in time and place to the last counts one more (a double-click selects
 * a word, a triple-click a paragraph), anything else starts again at 1.
 */
export class ClickCounter {
  #last: { at: number; x: number; y: number; button: number; count: number } | null = null;

  press(button: number, x: number, y: number, at: number): number {
    const l = this.#last;
    const again = l !== null && l.button === button && at - l.at <= MULTI_CLICK_MS && Math.hypot(x - l.x, y - l.y) <= MULTI_CLICK_PX;
    const count = again ? l.count + 1 : 1;
    this.#last = { at, x, y, button, count };
    return count;
  }

  /** The count of the press in progress, for its release. */
  get current(): number {
    return this.#last?.count ?? 1;
  }
}

/**
 * Map a point on the canvas to the remote page's CSS pixels, through the frame's own metadata
 * (the size of the viewport it shows), allowing for letterboxing when the element's shape differs.
 */
export function toRemote(canvas: HTMLCanvasElement, meta: FrameMeta | null, clientX: number, clientY: number): { x: number; y: number } {
  const rect = canvas.getBoundingClientRect();
  const width = meta?.deviceWidth ?? 1280;
  const height = meta?.deviceHeight ?? 720;
  const scale = Math.min(rect.width / width, rect.height / height) || 1;
  const left = rect.left + (rect.width - width * scale) / 2;
  const top = rect.top + (rect.height - height * scale) / 2;
  const x = (clientX - left) / scale;
  const y = (clientY - top) / scale;
  return { x: Math.round(Math.max(0, Math.min(width, x)) * 100) / 100, y: Math.round(Math.max(0, Math.min(height, y)) * 100) / 100 };
}

export function mouseMessage(
  action: 'move' | 'down' | 'up',
  e: PointerEvent | MouseEvent,
  at: { x: number; y: number },
  clickCount: number,
): ClientMessage {
  return {
    type: 'mouse',
    action,
    ...at,
    button: action === 'move' ? heldButton(e.buttons) : (BUTTONS[e.button] ?? 'left'),
    buttons: e.buttons,
    // Chromium counts on past 3 (a fourth quick click is a fourth); the protocol carries up to 3.
    clickCount: action === 'move' ? 0 : Math.min(3, Math.max(1, clickCount)),
    modifiers: modifiers(e),
  };
}

export function wheelMessage(e: WheelEvent, at: { x: number; y: number }, pageHeight: number): ClientMessage {
  const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? pageHeight : 1;
  return { type: 'wheel', ...at, deltaX: e.deltaX * scale, deltaY: e.deltaY * scale, modifiers: modifiers(e) };
}

export function keyMessage(action: 'down' | 'up', e: KeyboardEvent): ClientMessage {
  return {
    type: 'key',
    action,
    key: e.key.slice(0, 64),
    code: e.code.slice(0, 64),
    ...(action === 'down' && e.key.length === 1 && !e.ctrlKey && !e.metaKey ? { text: e.key } : {}),
    location: e.location,
    repeat: e.repeat,
    modifiers: modifiers(e),
  };
}

/** Keys the page keeps for itself even while the view has focus: paste goes through the paste event. */
export function isPasteShortcut(e: KeyboardEvent): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'v';
}

export function isCopyShortcut(e: KeyboardEvent): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && (e.key.toLowerCase() === 'c' || e.key.toLowerCase() === 'x');
}

export function touchMessage(
  action: 'start' | 'move' | 'end' | 'cancel',
  e: TouchEvent,
  map: (x: number, y: number) => { x: number; y: number },
): ClientMessage {
  const list = action === 'end' || action === 'cancel' ? e.changedTouches : e.touches;
  const points = Array.from(list)
    .slice(0, 10)
    .map((t) => ({
      id: t.identifier % 1000,
      ...map(t.clientX, t.clientY),
      radiusX: Math.min(500, t.radiusX),
      radiusY: Math.min(500, t.radiusY),
      force: Math.min(1, t.force),
    }));
  return { type: 'touch', action, points, modifiers: modifiers(e) };
}
