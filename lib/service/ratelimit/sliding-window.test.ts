import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateLimitHeaders } from './limiter.ts';
import { SlidingWindowLimiter } from './sliding-window.ts';

function limiter(start = 1_000_000) {
  const clock = { now: start };
  return { clock, l: new SlidingWindowLimiter({ windowMs: 60_000, buckets: 60, clock: () => clock.now }) };
}

test('the 41st request inside a minute is refused, with the wait until one is allowed', async () => {
  const { clock, l } = limiter();
  for (let i = 0; i < 40; i++) {
    const d = await l.take('k', 40);
    assert.equal(d.allowed, true, `request ${i + 1}`);
    assert.equal(d.remaining, 39 - i);
    clock.now += 100;
  }
  const refused = await l.take('k', 40);
  assert.equal(refused.allowed, false);
  assert.equal(refused.remaining, 0);
  assert.ok(refused.retryAfterSeconds >= 56 && refused.retryAfterSeconds <= 61, String(refused.retryAfterSeconds));
  // Still refused just before a minute has passed since the first request.
  clock.now = 1_000_000 + 59_900;
  assert.equal((await l.take('k', 40)).allowed, false);
  // Allowed again once the window allows, as Retry-After said.
  clock.now = 1_000_000 + 4_000 + refused.retryAfterSeconds * 1000;
  assert.equal((await l.take('k', 40)).allowed, true);
});

test('never more than the limit in any window, whatever the timing', async () => {
  const { clock, l } = limiter(0);
  const accepted: number[] = [];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 5000; i++) {
    clock.now += Math.floor(rand() * 3000);
    if ((await l.take('k', 10)).allowed) accepted.push(clock.now);
  }
  for (let i = 10; i < accepted.length; i++) {
    assert.ok((accepted[i] as number) - (accepted[i - 10] as number) >= 60_000, `11 requests within a minute at ${accepted[i]}`);
  }
  assert.ok(accepted.length > 500, 'capacity comes back as requests age out');
});

test('capacity returns gradually, not at a fixed minute boundary', async () => {
  const { clock, l } = limiter(0);
  for (let i = 0; i < 4; i++) {
    assert.equal((await l.take('k', 4)).allowed, true);
    clock.now += 15_000;
  }
  // t=60s: the first request (t=0) has left the window, the others have not.
  clock.now = 61_000;
  assert.equal((await l.take('k', 4)).allowed, true);
  assert.equal((await l.take('k', 4)).allowed, false);
});

test('keys are limited independently and peek does not count', async () => {
  const { l } = limiter();
  assert.equal((await l.take('a', 1)).allowed, true);
  assert.equal((await l.take('a', 1)).allowed, false);
  assert.equal(l.peek('b', 1).remaining, 1);
  assert.equal((await l.take('b', 1)).allowed, true);
});

test('headers carry the draft RateLimit fields and the X-RateLimit set', async () => {
  const { l } = limiter();
  const h = rateLimitHeaders(await l.take('k', 40));
  assert.equal(h['ratelimit-policy'], '"per-key";q=40;w=60');
  assert.match(h.ratelimit as string, /^"per-key";r=39;t=\d+$/);
  assert.equal(h['x-ratelimit-limit'], '40');
  assert.equal(h['x-ratelimit-remaining'], '39');
  assert.match(h['x-ratelimit-reset'] as string, /^\d+$/);
});
