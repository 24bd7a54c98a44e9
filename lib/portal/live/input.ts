import type { Protocol } from 'devtools-protocol/types/protocol.js';
import type { ClientMessage } from '../protocol/live.ts';

type Msg<T extends ClientMessage['type']> = Extract<ClientMessage, { type: T }>;

const NAMED_CODES: Record<string, number> = {
  Backspace: 8,
  Tab: 9,
  Enter: 13,
  NumpadEnter: 13,
  ShiftLeft: 16,
  ShiftRight: 16,
  ControlLeft: 17,
  ControlRight: 17,
  AltLeft: 18,
  AltRight: 18,
  Pause: 19,
  CapsLock: 20,
  Escape: 27,
  Space: 32,
  PageUp: 33,
  PageDown: 34,
  End: 35,
  Home: 36,
  ArrowLeft: 37,
  ArrowUp: 38,
  ArrowRight: 39,
  ArrowDown: 40,
  PrintScreen: 44,
  Insert: 45,
  Delete: 46,
  MetaLeft: 91,
  MetaRight: 92,
  ContextMenu: 93,
  NumpadMultiply: 106,
  NumpadAdd: 107,
  NumpadSubtract: 109,
  NumpadDecimal: 110,
  NumpadDivide: 111,
  NumLock: 144,
  ScrollLock: 145,
  Semicolon: 186,
  Equal: 187,
  Comma: 188,
  Minus: 189,
  Period: 190,
  Slash: 191,
  Backquote: 192,
  BracketLeft: 219,
  Backslash: 220,
  BracketRight: 221,
  Quote: 222,
  IntlBackslash: 226,
};

/** Windows virtual key code for a KeyboardEvent.code (layout-independent, as Chromium expects). */
export function virtualKeyCode(code: string): number {
  const named = NAMED_CODES[code];
  if (named !== undefined) return named;
  let m = /^Key([A-Z])$/.exec(code);
  if (m?.[1]) return m[1].charCodeAt(0);
  m = /^Digit(\d)$/.exec(code);
  if (m?.[1]) return 48 + Number(m[1]);
  m = /^Numpad(\d)$/.exec(code);
  if (m?.[1]) return 96 + Number(m[1]);
  m = /^F(\d{1,2})$/.exec(code);
  if (m?.[1] && Number(m[1]) >= 1 && Number(m[1]) <= 24) return 111 + Number(m[1]);
  return 0;
}

const CTRL = 2;
const META = 4;

export function keyEvent(m: Msg<'key'>): Protocol.Input.DispatchKeyEventRequest {
  const shortcut = (m.modifiers & (CTRL | META)) !== 0;
  const text = m.key === 'Enter' ? '\r' : (m.text ?? (m.key.length === 1 ? m.key : undefined));
  const withText = m.action === 'down' && !shortcut && text !== undefined;
  return {
    type: m.action === 'up' ? 'keyUp' : withText ? 'keyDown' : 'rawKeyDown',
    key: m.key,
    code: m.code,
    windowsVirtualKeyCode: virtualKeyCode(m.code),
    nativeVirtualKeyCode: virtualKeyCode(m.code),
    modifiers: m.modifiers,
    location: m.location,
    autoRepeat: m.repeat,
    isKeypad: m.location === 3,
    ...(withText ? { text, unmodifiedText: text } : {}),
  };
}

export function mouseEvent(m: Msg<'mouse'>): Protocol.Input.DispatchMouseEventRequest {
  return {
    type: m.action === 'down' ? 'mousePressed' : m.action === 'up' ? 'mouseReleased' : 'mouseMoved',
    x: m.x,
    y: m.y,
    button: m.button,
    buttons: m.buttons,
    clickCount: m.clickCount,
    modifiers: m.modifiers,
  };
}

export function wheelEvent(m: Msg<'wheel'>): Protocol.Input.DispatchMouseEventRequest {
  return { type: 'mouseWheel', x: m.x, y: m.y, deltaX: m.deltaX, deltaY: m.deltaY, modifiers: m.modifiers, button: 'none' };
}

export function touchEvent(m: Msg<'touch'>): Protocol.Input.DispatchTouchEventRequest {
  const type = ({ start: 'touchStart', move: 'touchMove', end: 'touchEnd', cancel: 'touchCancel' } as const)[m.action];
  return {
    type,
    modifiers: m.modifiers,
    touchPoints: m.points.map((p) => ({ x: p.x, y: p.y, id: p.id, radiusX: p.radiusX, radiusY: p.radiusY, force: p.force })),
  };
}

/**
 * Sends input in order without awaiting replies, and folds runs of mouse moves into the latest one:
 * a move waits at most until the next turn of the event loop, and any other input sends it first.
 */
export class InputQueue {
  readonly #sendMove: (params: Protocol.Input.DispatchMouseEventRequest) => void;
  #pendingMove: Protocol.Input.DispatchMouseEventRequest | null = null;
  #scheduled = false;
  coalesced = 0;

  constructor(sendMove: (params: Protocol.Input.DispatchMouseEventRequest) => void) {
    this.#sendMove = sendMove;
  }

  move(params: Protocol.Input.DispatchMouseEventRequest): void {
    if (this.#pendingMove) this.coalesced++;
    this.#pendingMove = params;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Any input other than a move: the pending move goes first, so order is kept. */
  send(run: () => void): void {
    this.flush();
    run();
  }

  flush(): void {
    this.#scheduled = false;
    const move = this.#pendingMove;
    this.#pendingMove = null;
    if (move) this.#sendMove(move);
  }
}
