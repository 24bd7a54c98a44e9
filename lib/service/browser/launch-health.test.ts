import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAILING_AFTER, LaunchHealth } from './launch-health.ts';

describe('LaunchHealth', () => {
  it('is failing after launches fail in a row, naming the last reason on one line', () => {
    const health = new LaunchHealth();
    for (let i = 1; i < FAILING_AFTER; i++) health.failed(new Error(`first ${i}`));
    assert.equal(health.problem, null, 'a failure or two is not yet a failing node');
    health.failed(new Error("bwrap: Can't find source path /proc/self/fd/5:\n  Permission denied"));
    assert.equal(
      health.problem,
      `the last ${FAILING_AFTER} browser launches failed; the last one: bwrap: Can't find source path /proc/self/fd/5: Permission denied`,
    );
  });

  it('is healthy again once a launch succeeds', () => {
    const health = new LaunchHealth();
    for (let i = 0; i < FAILING_AFTER + 2; i++) health.failed('no');
    assert.ok(health.problem);
    health.succeeded();
    assert.equal(health.problem, null);
    health.failed('once');
    assert.equal(health.problem, null, 'the count starts again');
  });

  it('keeps a long reason bounded', () => {
    const health = new LaunchHealth();
    for (let i = 0; i < FAILING_AFTER; i++) health.failed(new Error('x'.repeat(5000)));
    assert.ok((health.problem?.length ?? 0) < 600);
  });
});
