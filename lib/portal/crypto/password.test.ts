import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, passwordProblem, verifyPassword } from './password.ts';

describe('password hashing (scrypt)', () => {
  it('verifies the right password only, with a fresh salt each time', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    assert.match(a, /^scrypt\$17\$8\$1\$/);
    assert.notEqual(a, b);
    assert.equal(await verifyPassword('correct horse battery', a), true);
    assert.equal(await verifyPassword('correct horse batterY', a), false);
  });

  it('never matches a malformed or altered stored hash', async () => {
    const h = await hashPassword('correct horse battery');
    assert.equal(await verifyPassword('correct horse battery', 'plain'), false);
    assert.equal(await verifyPassword('correct horse battery', h.replace('scrypt$17', 'scrypt$30')), false);
    const parts = h.split('$');
    parts[5] = Buffer.alloc(32).toString('base64url');
    assert.equal(await verifyPassword('correct horse battery', parts.join('$')), false);
  });

  it('asks for a minimum length', () => {
    assert.match(passwordProblem('short') ?? '', /at least 10/);
    assert.equal(passwordProblem('long enough pass'), null);
  });
});
