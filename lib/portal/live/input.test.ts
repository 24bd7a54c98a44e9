import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputQueue, keyEvent, virtualKeyCode } from './input.ts';

describe('key events', () => {
  it('maps KeyboardEvent.code to Windows virtual key codes, layout independent', () => {
    assert.equal(virtualKeyCode('KeyA'), 65);
    assert.equal(virtualKeyCode('Digit7'), 55);
    assert.equal(virtualKeyCode('Numpad3'), 99);
    assert.equal(virtualKeyCode('F12'), 123);
    assert.equal(virtualKeyCode('Enter'), 13);
    assert.equal(virtualKeyCode('Semicolon'), 186);
    assert.equal(virtualKeyCode('Unknown'), 0);
  });

  it('sends text with printable keys but not with Ctrl or Meta shortcuts', () => {
    const base = { type: 'key' as const, location: 0, repeat: false };
    const typed = keyEvent({ ...base, action: 'down', key: 'é', code: 'Digit2', modifiers: 0 });
    assert.deepEqual([typed.type, typed.text, typed.windowsVirtualKeyCode], ['keyDown', 'é', 50]);
    const shortcut = keyEvent({ ...base, action: 'down', key: 'c', code: 'KeyC', modifiers: 2 });
    assert.deepEqual([shortcut.type, shortcut.text, shortcut.modifiers], ['rawKeyDown', undefined, 2]);
    assert.equal(keyEvent({ ...base, action: 'down', key: 'Enter', code: 'Enter', modifiers: 0 }).text, '\r');
    assert.equal(keyEvent({ ...base, action: 'down', key: 'ArrowLeft', code: 'ArrowLeft', modifiers: 0 }).type, 'rawKeyDown');
    assert.equal(keyEvent({ ...base, action: 'up', key: 'a', code: 'KeyA', modifiers: 0 }).type, 'keyUp');
  });
});

describe('InputQueue', () => {
  it('folds moves into the latest and keeps order with other input', async () => {
    const out: string[] = [];
    const q = new InputQueue((p) => out.push(`move ${p.x}`));
    for (let x = 1; x <= 300; x++) q.move({ type: 'mouseMoved', x, y: 0 });
    q.send(() => out.push('down'));
    q.move({ type: 'mouseMoved', x: 500, y: 0 });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(out, ['move 300', 'down', 'move 500']);
    assert.equal(q.coalesced, 299);
  });
});
