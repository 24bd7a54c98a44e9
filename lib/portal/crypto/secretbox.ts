import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption of small secrets at rest: AES-256-GCM with a 96-bit random nonce.
 * The 256-bit key is derived from the configured secret with HKDF-SHA256, so any long random
 * text works as a secret. The sealed text reads
 *   v1.<key id>.<nonce>.<ciphertext>.<tag>   (base64url parts)
 * where the key id is a short fingerprint of the key, so a keyring of old and new secrets can
 * find the right one during a rotation. Associated data binds a ciphertext to its row: moving
 * it to another row makes it fail to open, like any tampering.
 */
const VERSION = 'v1';
const INFO = 'periscope portal key vault v1';

export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

export type SealKey = { id: string; key: Buffer };

export function deriveSealKey(secret: string): SealKey {
  if (secret.length < 32) throw new RangeError('an encryption secret is at least 32 characters');
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), INFO, 32));
  const id = createHash('sha256').update(key).update('key id').digest('base64url').slice(0, 8);
  return { id, key };
}

export class SecretBox {
  readonly #current: SealKey;
  readonly #all: Map<string, SealKey>;

  /** `current` seals; it and every `previous` one open. */
  constructor(current: string, previous: readonly string[] = []) {
    this.#current = deriveSealKey(current);
    this.#all = new Map([this.#current, ...previous.map(deriveSealKey)].map((k) => [k.id, k]));
  }

  get keyId(): string {
    return this.#current.id;
  }

  seal(plaintext: string, associated: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, nonce);
    cipher.setAAD(Buffer.from(associated, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, this.#current.id, nonce.toString('base64url'), ct.toString('base64url'), tag.toString('base64url')].join('.');
  }

  /** The plaintext, or SealError when the text was altered, bound to another row or sealed with an unknown secret. */
  open(sealed: string, associated: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SealError('not a sealed secret of a known version');
    const [, keyId, nonceText, ctText, tagText] = parts as [string, string, string, string, string];
    const key = this.#all.get(keyId);
    if (!key) throw new SealError('sealed with a secret this configuration does not hold');
    const nonce = Buffer.from(nonceText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (nonce.length !== 12 || tag.length !== 16) throw new SealError('sealed secret is malformed');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, nonce, { authTagLength: 16 });
      decipher.setAAD(Buffer.from(associated, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealError('sealed secret failed authentication (tampered, or bound to another record)');
    }
  }

  /** True when `sealed` was made with the current secret. */
  isCurrent(sealed: string): boolean {
    return sealed.split('.')[1] === this.#current.id;
  }
}
