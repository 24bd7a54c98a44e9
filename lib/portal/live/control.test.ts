import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControlState } from './control.ts';

describe('ControlState', () => {
  it('gives control to the first viewer; others watch until it is handed over', () => {
    const c = new ControlState();
    c.join('a', 'Ada');
    c.join('b', 'Bob');
    assert.equal(c.controllerId, 'a');
    assert.equal(c.request('b'), false);
    assert.deepEqual(
      c.list().map((v) => [v.id, v.control, v.requested]),
      [
        ['a', true, false],
        ['b', false, true],
      ],
    );
    assert.equal(c.grant('b', 'a'), false, 'only the controller hands over');
    assert.equal(c.grant('a', 'zed'), false, 'only to someone watching');
    assert.equal(c.grant('a', 'b'), true);
    assert.equal(c.controllerId, 'b');
    assert.equal(c.list().find((v) => v.id === 'b')?.requested, false);
  });

  it('passes control on release to the first who asked, and on leave to the first who asked or the oldest', () => {
    const c = new ControlState();
    c.join('a', 'A');
    c.join('b', 'B');
    c.join('c', 'C');
    c.request('c');
    assert.equal(c.release('b'), false);
    assert.equal(c.release('a'), true);
    assert.equal(c.controllerId, 'c');
    c.release('c');
    assert.equal(c.controllerId, null, 'nobody asked: nobody controls');
    assert.equal(c.request('b'), true, 'free control is granted at once');
    c.leave('b');
    assert.equal(c.controllerId, 'a', 'the longest watcher takes over');
  });

  it('lets a question be taken back, and only the controller say no to it', () => {
    const c = new ControlState();
    c.join('a', 'Ada', { userId: 'u1' });
    c.join('b', 'Bob', { userId: 'u2' });
    c.request('b');
    c.withdraw('b');
    assert.equal(c.list().find((v) => v.id === 'b')?.requested, false);
    c.request('b');
    assert.equal(c.decline('b', 'b'), false, 'not by the one asking');
    assert.equal(c.decline('a', 'zed'), false, 'not for someone who did not ask');
    assert.equal(c.decline('a', 'b'), true);
    assert.deepEqual(
      c.list().map((v) => [v.id, v.userId, v.control, v.requested]),
      [
        ['a', 'u1', true, false],
        ['b', 'u2', false, false],
      ],
    );
    assert.equal(c.decline('a', 'b'), false, 'answered once');
  });

  it('lets a viewer who asked take control without the controller, and no one who did not ask', () => {
    const c = new ControlState();
    c.join('a', 'Ada');
    c.join('b', 'Bob');
    c.join('w', 'Link', { watchOnly: true });
    assert.equal(c.take('b'), null, 'Bob has not asked');
    assert.equal(c.take('w'), null, 'a watch-only viewer never controls');
    assert.equal(c.take('a'), null, 'Ada has control already');
    c.request('b');
    assert.equal(c.take('b'), 'a');
    assert.equal(c.controllerId, 'b');
    assert.equal(c.list().find((v) => v.id === 'b')?.requested, false, 'the question is answered');
  });

  it('lets a viewer join without taking control', () => {
    const c = new ControlState();
    c.join('watcher', 'W', { takeControl: false });
    assert.equal(c.controllerId, null);
    assert.equal(c.size, 1);
  });
});
