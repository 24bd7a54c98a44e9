import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SealError, SecretBox } from './secretbox.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

/** Flip one bit of one base64url part of a sealed text. */
function flip(sealed: string, part: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part] as string, 'base64url');
  bytes[0] = (bytes[0] as number) ^ 1;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('SecretBox (AES-256-GCM)', () => {
  it('opens what it sealed, and never puts the plaintext in the sealed text', () => {
    const box = new SecretBox(A);
    const sealed = box.seal('psk_0123456789abcdef_secret', 'team_key:1');
    assert.equal(box.open(sealed, 'team_key:1'), 'psk_0123456789abcdef_secret');
    assert.ok(!sealed.includes('secret'));
    assert.notEqual(box.seal('same', 'x'), box.seal('same', 'x'), 'a fresh nonce every time');
  });

  it('refuses a tampered ciphertext, nonce or tag', () => {
    const box = new SecretBox(A);
    const sealed = box.seal('the key', 'team_key:1');
    for (const part of [2, 3, 4]) assert.throws(() => box.open(flip(sealed, part), 'team_key:1'), SealError, `part ${part}`);
    assert.throws(() => box.open(sealed.slice(0, -2), 'team_key:1'), SealError);
    assert.throws(() => box.open(`v2${sealed.slice(2)}`, 'team_key:1'), SealError);
  });

  it('refuses a ciphertext moved to another record', () => {
    const box = new SecretBox(A);
    assert.throws(() => box.open(box.seal('the key', 'team_key:1'), 'team_key:2'), /another record|authentication/);
  });

  it('refuses another secret, and opens with a previous one kept for rotation', () => {
    const old = new SecretBox(A);
    const sealed = old.seal('the key', 'r');
    assert.throws(() => new SecretBox(B).open(sealed, 'r'), /does not hold/);
    const rotated = new SecretBox(B, [A]);
    assert.equal(rotated.open(sealed, 'r'), 'the key');
    assert.equal(rotated.isCurrent(sealed), false);
    assert.equal(rotated.isCurrent(rotated.seal('x', 'r')), true);
  });

  it('rejects a short secret', () => {
    assert.throws(() => new SecretBox('short'), RangeError);
  });
});
