import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (memory-hard; OWASP's parameters N=2^17, r=8, p=1: 128 MiB and a
 * few hundred milliseconds a hash). The stored text names its own parameters, so they can be
 * raised later and old hashes still verify: `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>`.
 */
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password-rules.ts';

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH };

type Params = { logN: number; r: number; p: number };
const CURRENT: Params = { logN: 17, r: 8, p: 1 };
const KEY_LENGTH = 32;

// Each hash holds 128 MiB while it runs: at most this many at once, the rest wait their turn,
// so a burst of sign-ins cannot exhaust memory.
const MAX_CONCURRENT = 4;
let running = 0;
const waiting: (() => void)[] = [];

async function derive(password: string, salt: Buffer, { logN, r, p }: Params): Promise<Buffer> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    const N = 2 ** logN;
    const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * p + 16 * 1024 * 1024 };
    return await new Promise<Buffer>((resolve, reject) => {
      scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
    });
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** Why a password is not acceptable, or null when it is. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, CURRENT);
  return ['scrypt', CURRENT.logN, CURRENT.r, CURRENT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Constant-time comparison; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4] as string, 'base64url');
  const expected = Buffer.from(parts[5] as string, 'base64url');
  if (expected.length !== KEY_LENGTH || password.length > PASSWORD_MAX_LENGTH) return false;
  const actual = await derive(password, salt, { logN, r, p });
  return timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | undefined;
/** Spend the same time as a real check, for addresses without an account (no user enumeration by timing). */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword('not-a-real-password-for-timing');
  await verifyPassword(password.slice(0, PASSWORD_MAX_LENGTH), await dummy);
}
