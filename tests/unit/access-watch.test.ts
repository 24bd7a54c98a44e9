import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { WebSocket } from 'ws';
import type { AccessChange } from '#portal/data/portal-data.ts';
import { AccessWatch } from '../../server/portal/sockets/access-watch.ts';
import type { Access, SignedInUser } from '../../server/portal/sockets/authorize.ts';

const tick = () => new Promise((r) => setImmediate(r));

/** Access as a table the test edits, and the change feed the data module would send. */
function world() {
  const access = new Map<string, Access>();
  const feed = new EventEmitter<{ change: [AccessChange] }>();
  const auth = {
    recheck: async (user: SignedInUser, teamId: string) => access.get(`${user.userId} ${teamId}`) ?? 'ok',
    onAccessChange: (listener: (c: AccessChange) => void) => {
      feed.on('change', listener);
      return () => feed.off('change', listener);
    },
  };
  return { access, feed, auth };
}

const socket = () => new EventEmitter() as unknown as WebSocket & EventEmitter;
const user = (userId: string): SignedInUser => ({ userId, name: userId, sessionVersion: 0 });

describe('AccessWatch', () => {
  it("re-checks only the changed user's sockets, in the changed team or all of them", async () => {
    const { access, feed, auth } = world();
    const watch = new AccessWatch(auth);
    const seen: string[] = [];
    watch.watch(socket(), user('ann'), 't1', (a) => seen.push(`ann t1 ${a}`));
    watch.watch(socket(), user('ann'), 't2', (a) => seen.push(`ann t2 ${a}`));
    watch.watch(socket(), user('bob'), 't1', (a) => seen.push(`bob t1 ${a}`));
    await tick();
    assert.deepEqual(seen, [], 'the first check says nothing while access is fine');

    access.set('ann t1', 'not-member');
    feed.emit('change', { userId: 'ann', teamId: 't1' });
    await tick();
    assert.deepEqual(seen, ['ann t1 not-member']);

    access.set('ann t2', 'signed-out');
    access.set('ann t1', 'signed-out');
    feed.emit('change', { userId: 'ann', teamId: null });
    await tick();
    assert.deepEqual(seen.slice(1), ['ann t1 signed-out', 'ann t2 signed-out']);
    watch.stop();
    assert.equal(feed.listenerCount('change'), 0);
  });

  it('re-checks every socket when another process changed the data, telling only those no longer allowed', async () => {
    const { access, feed, auth } = world();
    const watch = new AccessWatch(auth);
    const seen: string[] = [];
    watch.watch(socket(), user('ann'), 't1', (a) => seen.push(`ann t1 ${a}`));
    watch.watch(socket(), user('bob'), 't1', (a) => seen.push(`bob t1 ${a}`));
    await tick();
    access.set('bob t1', 'signed-out'); // the operator's CLI signed Bob out
    feed.emit('change', { userId: null, teamId: null });
    await tick();
    assert.deepEqual(seen, ['bob t1 signed-out']);
    watch.stop();
  });

  it('forgets a socket once it closes, and catches a change made before it was watched', async () => {
    const { access, feed, auth } = world();
    const watch = new AccessWatch(auth);
    const seen: Access[] = [];
    const ws = socket();
    access.set('ann t1', 'not-member'); // removed between the handshake's check and the watch
    watch.watch(ws, user('ann'), 't1', (a) => seen.push(a));
    await tick();
    assert.deepEqual(seen, ['not-member']);
    ws.emit('close');
    feed.emit('change', { userId: 'ann', teamId: 't1' });
    await tick();
    assert.deepEqual(seen, ['not-member'], 'a closed socket is not told again');
  });

  it('fails closed: a check that throws counts as signed out', async () => {
    const { feed, auth } = world();
    const watch = new AccessWatch({
      ...auth,
      recheck: async () => {
        throw new Error('database is locked');
      },
    });
    const seen: Access[] = [];
    watch.watch(socket(), user('ann'), 't1', (a) => seen.push(a));
    feed.emit('change', { userId: 'ann', teamId: 't1' });
    await tick();
    assert.ok(seen.length >= 1 && seen.every((a) => a === 'signed-out'), String(seen));
  });
});
