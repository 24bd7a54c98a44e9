import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkStartOptions } from './start.ts';

const check = (query: string) => checkStartOptions(new URLSearchParams(query), 3600);

describe("/start's profile options", () => {
  it('reads a profile name, persisting or not', () => {
    assert.deepEqual(check('profile=work'), { ok: true, options: { profile: { name: 'work', persist: false } } });
    assert.deepEqual(check('profile=a.b_c-1&persist=1'), { ok: true, options: { profile: { name: 'a.b_c-1', persist: true } } });
    assert.deepEqual(check('profile=work&persist=0&timeout=60'), {
      ok: true,
      options: { lifetimeSeconds: 60, profile: { name: 'work', persist: false } },
    });
    assert.deepEqual(check(`profile=${'x'.repeat(64)}`), { ok: true, options: { profile: { name: 'x'.repeat(64), persist: false } } });
    assert.deepEqual(check(''), { ok: true, options: {} });
  });

  it('names the option that breaks its rule', () => {
    for (const [query, field] of [
      ['profile=', 'profile'],
      ['profile=a/b', 'profile'],
      ['profile=a%20b', 'profile'],
      [`profile=${'x'.repeat(65)}`, 'profile'],
      ['profile=a&profile=b', 'profile'],
      ['profile=a&persist=true', 'persist'],
      ['profile=a&persist=1&persist=1', 'persist'],
      ['persist=1', 'persist'],
    ] as const) {
      const got = check(query);
      assert.equal(got.ok, false, query);
      if (!got.ok) assert.equal(got.issues[0]?.field, field, query);
    }
  });
});
