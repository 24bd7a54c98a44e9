import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SignInThrottle } from './throttle.ts';
import { memoryData } from '../../../tests/helpers/portal-doubles.ts';

function setup(policy = { maxFailures: 4, maxFailuresPerAddress: 6, lockMs: 60_000 }) {
  let now = 1_000_000;
  const slept: number[] = [];
  const throttle = new SignInThrottle(memoryData(), policy, { now: () => now, sleep: async (ms) => void slept.push(ms) });
  return { throttle, slept, advance: (ms: number) => (now += ms) };
}

describe('sign-in throttle', () => {
  it('slows down after repeated failures, then locks the account with a clear message', async () => {
    const { throttle, slept } = setup();
    for (let i = 0; i < 3; i++) {
      await throttle.before('a@x.test', '10.0.0.1');
      await throttle.failed('a@x.test', '10.0.0.1');
    }
    assert.deepEqual(slept, [250], 'the third attempt waited');
    await throttle.before('a@x.test', '10.0.0.1');
    assert.deepEqual(slept, [250, 500], 'each further attempt waits longer');
    await assert.rejects(
      throttle.failed('a@x.test', '10.0.0.1'),
      (e: Error & { status: number }) => e.status === 429 && /locked; try again in 1 minute/.test(e.message),
    );
    await assert.rejects(throttle.before('a@x.test', '10.0.0.1'), /Too many failed sign-in attempts for this account/);
  });

  it('ends the lock after its time, and a success clears the count', async () => {
    const { throttle, advance } = setup();
    for (let i = 0; i < 3; i++) await throttle.failed('a@x.test', null);
    await assert.rejects(throttle.failed('a@x.test', null), /locked/);
    advance(60_001);
    await throttle.before('a@x.test', null);
    await throttle.failed('a@x.test', null);
    await throttle.succeeded('a@x.test');
    for (let i = 0; i < 3; i++) await throttle.failed('a@x.test', null);
  });

  it('locks an address that fails across many accounts', async () => {
    const { throttle } = setup();
    for (let i = 0; i < 5; i++) await throttle.failed(`u${i}@x.test`, '10.0.0.9');
    await assert.rejects(throttle.failed('u5@x.test', '10.0.0.9'), /your network address/);
    await assert.rejects(throttle.before('fresh@x.test', '10.0.0.9'), /your network address/);
    await throttle.before('fresh@x.test', '10.0.0.10');
  });
});
