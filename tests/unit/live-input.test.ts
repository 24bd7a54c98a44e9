import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClickCounter, heldButton, MULTI_CLICK_MS, mouseMessage } from '../../app/_live/input.ts';

const pointer = (button: number, buttons: number) =>
  ({ button, buttons, altKey: false, ctrlKey: false, metaKey: false, shiftKey: false }) as PointerEvent;

describe('mouse input of the live view', () => {
  it('counts double and triple clicks as the platform does, and starts again when they are apart', () => {
    const c = new ClickCounter();
    assert.equal(c.press(0, 10, 10, 1000), 1);
    assert.equal(c.press(0, 11, 12, 1200), 2, 'close in time and place');
    assert.equal(c.current, 2, 'the release carries the same count');
    assert.equal(c.press(0, 10, 10, 1400), 3);
    assert.equal(c.press(0, 10, 10, 1400 + MULTI_CLICK_MS + 1), 1, 'too late');
    assert.equal(c.press(0, 30, 10, 1500), 1, 'too far');
    assert.equal(c.press(2, 30, 10, 1600), 1, 'another button');
  });

  it('sends a drag as moves that hold the pressed button, and a hover as moves with none', () => {
    assert.equal(heldButton(1), 'left');
    assert.equal(heldButton(2), 'right');
    assert.equal(heldButton(4), 'middle');
    assert.equal(heldButton(3), 'left');
    assert.equal(heldButton(0), 'none');
    const drag = mouseMessage('move', pointer(-1, 1), { x: 5, y: 6 }, 0);
    assert.deepEqual(
      [drag.type === 'mouse' && drag.button, drag.type === 'mouse' && drag.buttons, drag.type === 'mouse' && drag.clickCount],
      ['left', 1, 0],
    );
    const hover = mouseMessage('move', pointer(-1, 0), { x: 5, y: 6 }, 0);
    assert.equal(hover.type === 'mouse' && hover.button, 'none');
    const third = mouseMessage('down', pointer(0, 1), { x: 5, y: 6 }, 7);
    assert.equal(third.type === 'mouse' && third.clickCount, 3, 'the protocol carries up to 3');
  });
});
