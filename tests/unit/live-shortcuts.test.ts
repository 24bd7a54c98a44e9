import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SHORTCUTS, shortcutOf } from '#app/_live/shortcuts.ts';

const press = (code: string, mods: Partial<Record<'altKey' | 'shiftKey' | 'ctrlKey' | 'metaKey', boolean>> = {}) => ({
  code,
  altKey: false,
  shiftKey: false,
  ctrlKey: false,
  metaKey: false,
  ...mods,
});

describe('live view shortcuts', () => {
  it('are Alt+Shift on the physical key, whatever character the layout makes of it', () => {
    assert.equal(shortcutOf(press('KeyL', { altKey: true, shiftKey: true })), 'address');
    assert.equal(shortcutOf(press('Slash', { altKey: true, shiftKey: true })), 'help');
    assert.equal(shortcutOf(press('ArrowLeft', { altKey: true, shiftKey: true })), 'back');
  });

  it('leave every other chord to the remote page', () => {
    for (const mods of [
      {},
      { altKey: true },
      { shiftKey: true },
      { altKey: true, shiftKey: true, ctrlKey: true },
      { altKey: true, shiftKey: true, metaKey: true },
    ]) {
      assert.equal(shortcutOf(press('KeyL', mods)), null, JSON.stringify(mods));
    }
    assert.equal(shortcutOf(press('KeyQ', { altKey: true, shiftKey: true })), null);
  });

  it('name one action per key, each described', () => {
    assert.equal(new Set(SHORTCUTS.map((s) => s.code)).size, SHORTCUTS.length);
    assert.equal(new Set(SHORTCUTS.map((s) => s.action)).size, SHORTCUTS.length);
    for (const s of SHORTCUTS) assert.ok(s.does && s.keys.startsWith('Alt+Shift+'), s.action);
  });
});
