import { useEffect, type RefObject } from 'react';
import type { ClientMessageInput, FrameMeta } from '#portal/protocol/live.ts';
import { ClickCounter, isCopyShortcut, isPasteShortcut, keyMessage, mouseMessage, toRemote, touchMessage, wheelMessage } from './input.ts';

/**
 * Pointer, wheel, touch and keyboard input on the live view, sent only while this viewer has
 * control. Keys go through a hidden textarea that takes focus when the view is clicked, so they reach
 * the remote page only while the view has focus, and paste and IME composition work as usual.
 */
export function useRemoteInput(
  canvasRef: RefObject<HTMLCanvasElement | null>,
  keysRef: RefObject<HTMLTextAreaElement | null>,
  metaRef: RefObject<FrameMeta | null>,
  inControl: boolean,
  send: (m: ClientMessageInput) => void,
): void {
  useEffect(() => {
    const canvas = canvasRef.current;
    const keys = keysRef.current;
    if (!canvas || !keys || !inControl) return;
    const at = (x: number, y: number) => toRemote(canvas, metaRef.current, x, y);
    const clicks = new ClickCounter();
    const onPointer = (action: 'move' | 'down' | 'up') => (e: PointerEvent) => {
      if (e.pointerType === 'touch') return;
      let count = 0;
      if (action === 'down') {
        canvas.setPointerCapture(e.pointerId);
        keys.focus({ preventScroll: true });
        e.preventDefault();
        count = clicks.press(e.button, e.clientX, e.clientY, e.timeStamp);
      } else if (action === 'up') count = clicks.current;
      send(mouseMessage(action, e, at(e.clientX, e.clientY), count));
    };
    const down = onPointer('down');
    const move = onPointer('move');
    const up = onPointer('up');
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      send(wheelMessage(e, at(e.clientX, e.clientY), metaRef.current?.deviceHeight ?? 720));
    };
    const touch = (action: 'start' | 'move' | 'end' | 'cancel') => (e: TouchEvent) => {
      e.preventDefault();
      if (action === 'start') keys.focus({ preventScroll: true });
      send(touchMessage(action, e, at));
    };
    const touches = (['start', 'move', 'end', 'cancel'] as const).map((a) => [a, touch(a)] as const);
    const keydown = (e: KeyboardEvent) => {
      if (e.isComposing || e.key === 'Process') return;
      if (isPasteShortcut(e)) return; // the paste event carries the text
      if (isCopyShortcut(e)) send({ type: 'copy' });
      e.preventDefault();
      send(keyMessage('down', e));
    };
    const keyup = (e: KeyboardEvent) => {
      if (e.isComposing || isPasteShortcut(e)) return;
      e.preventDefault();
      send(keyMessage('up', e));
    };
    const paste = (e: ClipboardEvent) => {
      e.preventDefault();
      const text = e.clipboardData?.getData('text/plain') ?? '';
      if (text) send({ type: 'text', text: text.slice(0, 32_768) });
    };
    const compositionupdate = (e: CompositionEvent) =>
      send({ type: 'compose', text: e.data.slice(0, 1024), selectionStart: e.data.length, selectionEnd: e.data.length });
    const compositionend = (e: CompositionEvent) => {
      if (e.data) send({ type: 'text', text: e.data });
      keys.value = '';
    };
    canvas.addEventListener('pointerdown', down);
    canvas.addEventListener('pointermove', move);
    canvas.addEventListener('pointerup', up);
    canvas.addEventListener('wheel', wheel, { passive: false });
    for (const [a, fn] of touches) canvas.addEventListener(`touch${a}`, fn, { passive: false });
    keys.addEventListener('keydown', keydown);
    keys.addEventListener('keyup', keyup);
    keys.addEventListener('paste', paste);
    keys.addEventListener('compositionupdate', compositionupdate);
    keys.addEventListener('compositionend', compositionend);
    return () => {
      canvas.removeEventListener('pointerdown', down);
      canvas.removeEventListener('pointermove', move);
      canvas.removeEventListener('pointerup', up);
      canvas.removeEventListener('wheel', wheel);
      for (const [a, fn] of touches) canvas.removeEventListener(`touch${a}`, fn);
      keys.removeEventListener('keydown', keydown);
      keys.removeEventListener('keyup', keyup);
      keys.removeEventListener('paste', paste);
      keys.removeEventListener('compositionupdate', compositionupdate);
      keys.removeEventListener('compositionend', compositionend);
    };
  }, [inControl, send]);
}
