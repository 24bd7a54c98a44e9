import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Saved profiles at rest: AES-256-GCM (96-bit random nonce, 128-bit tag) under a key derived with
 * HKDF-SHA256 from the operator's secret (PROFILE_ENCRYPTION_SECRET), as the portal's key vault
 * does (decision 0022). A sealed profile reads
 *   "PSP1" | key id (8 bytes) | nonce (12) | ciphertext | tag (16)
 * The key id is a fingerprint of the key, so a keyring of the current and previous secrets opens
 * profiles sealed before a rotation. The associated data names the API key (by the tag its profiles
 * are kept under, a hash of its id) and the profile, so a file moved to another key's or another
 * profile's place fails to open, like any tampering.
 */
const MAGIC = Buffer.from('PSP1');
const INFO = 'periscope saved browser profile v1';
const HEAD = MAGIC.length + 8 + 12;
const TAG = 16;

export class ProfileSealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProfileSealError';
  }
}

type Key = { id: Buffer; key: Buffer };

function derive(secret: string): Key {
  if (secret.length < 32) throw new RangeError('a profile encryption secret is at least 32 characters');
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), INFO, 32));
  return { id: createHash('sha256').update(key).update('key id').digest().subarray(0, 8), key };
}

const associated = (owner: string, name: string) => Buffer.from(`${INFO}\0${owner}\0${name}`, 'utf8');

export class ProfileSealer {
  readonly #current: Key;
  readonly #all: Key[];

  /** `current` seals; it and every `previous` one open. */
  constructor(current: string, previous: readonly string[] = []) {
    this.#current = derive(current);
    this.#all = [this.#current, ...previous.map(derive)];
  }

  /** Bytes that sealing adds to a profile. */
  static readonly overhead = HEAD + TAG;

  seal(plain: Buffer, owner: string, name: string): Buffer {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, nonce);
    cipher.setAAD(associated(owner, name));
    const body = cipher.update(plain);
    const final = cipher.final();
    return Buffer.concat([MAGIC, this.#current.id, nonce, body, final, cipher.getAuthTag()]);
  }

  /** The plaintext, or ProfileSealError when it was altered, moved, or sealed with a secret this configuration does not hold. */
  open(sealed: Buffer, owner: string, name: string): Buffer {
    if (sealed.length < HEAD + TAG || !sealed.subarray(0, MAGIC.length).equals(MAGIC))
      throw new ProfileSealError('not a sealed profile of a known version');
    const id = sealed.subarray(MAGIC.length, MAGIC.length + 8);
    const key = this.#all.find((k) => k.id.equals(id));
    if (!key) throw new ProfileSealError('sealed with a secret this configuration does not hold (PROFILE_ENCRYPTION_SECRET_PREVIOUS?)');
    const nonce = sealed.subarray(MAGIC.length + 8, HEAD);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, nonce, { authTagLength: TAG });
      decipher.setAAD(associated(owner, name));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
      const plain = decipher.update(sealed.subarray(HEAD, sealed.length - TAG));
      // GCM gives everything from update and nothing from final (which checks the tag): no copy of the whole profile to join the two.
      const rest = decipher.final();
      return rest.length === 0 ? plain : Buffer.concat([plain, rest]);
    } catch {
      throw new ProfileSealError('the saved profile failed authentication (altered, or moved from another place)');
    }
  }

  /** True when `sealed` was made with the current secret (else the next save seals it again with it). */
  isCurrent(sealed: Buffer): boolean {
    return sealed.subarray(MAGIC.length, MAGIC.length + 8).equals(this.#current.id);
  }
}
