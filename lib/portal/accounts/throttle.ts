import type { PortalData } from '../data/portal-data.ts';
import { TooManyRequests } from '../errors.ts';

export type ThrottlePolicy = { maxFailures: number; maxFailuresPerAddress: number; lockMs: number };

/** Failures after which every further attempt is held back (slowed down) before it is checked. */
const SLOW_AFTER = 2;
const MAX_DELAY_MS = 2_000;

/**
 * Sign-in throttling, per account (email) and per client address. Each failure within the
 * window counts; from the third one the next attempts are slowed down (250 ms doubling to 2 s),
 * and at the limit the scope is refused until the lock ends, even with the right password.
 * A success clears the account's count. The counts live in the database, so they survive a
 * restart and hold across processes.
 */
export class SignInThrottle {
  readonly #data: PortalData;
  readonly #policy: ThrottlePolicy;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(data: PortalData, policy: ThrottlePolicy, clock: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {}) {
    this.#data = data;
    this.#policy = policy;
    this.#now = clock.now ?? Date.now;
    this.#sleep = clock.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** An email of null counts against the client address only (a sign-up that hit a taken address). */
  #scopes(email: string | null, address: string | null): { scope: string; max: number }[] {
    const scopes = email === null ? [] : [{ scope: `email:${email}`, max: this.#policy.maxFailures }];
    if (address) scopes.push({ scope: `addr:${address}`, max: this.#policy.maxFailuresPerAddress });
    return scopes;
  }

  /** Before checking a password: refuse a locked scope, and hold back a suspicious one. */
  async before(email: string | null, address: string | null): Promise<void> {
    const now = this.#now();
    let delay = 0;
    for (const { scope, max } of this.#scopes(email, address)) {
      const record = await this.#data.failures(scope);
      if (!record) continue;
      if (record.lockedUntil !== null && record.lockedUntil > now) throw lockedError(scope, record.lockedUntil - now, now);
      if (record.windowStartedAt + this.#policy.lockMs <= now) continue;
      if (record.failures >= SLOW_AFTER && record.failures < max) {
        delay = Math.max(delay, Math.min(MAX_DELAY_MS, 250 * 2 ** (record.failures - SLOW_AFTER)));
      }
    }
    if (delay) await this.#sleep(delay);
  }

  /** After a wrong password (or unknown address). Throws the lock error when this failure hit a limit. */
  async failed(email: string | null, address: string | null): Promise<void> {
    const now = this.#now();
    let locked: TooManyRequests | undefined;
    for (const { scope, max } of this.#scopes(email, address)) {
      const old = await this.#data.failures(scope);
      const fresh = !old || old.windowStartedAt + this.#policy.lockMs <= now || (old.lockedUntil !== null && old.lockedUntil <= now);
      const failures = fresh ? 1 : old.failures + 1;
      const lockedUntil = failures >= max ? now + this.#policy.lockMs : null;
      await this.#data.saveFailures({ scope, failures, windowStartedAt: fresh ? now : old.windowStartedAt, lockedUntil });
      if (lockedUntil !== null) locked ??= lockedError(scope, this.#policy.lockMs, now);
    }
    if (locked) throw locked;
  }

  async succeeded(email: string): Promise<void> {
    await this.#data.clearFailures(`email:${email}`);
  }

  /** An operator's unlock: the account's count and lock are gone. */
  async unlock(email: string): Promise<boolean> {
    const had = await this.#data.failures(`email:${email}`);
    await this.#data.clearFailures(`email:${email}`);
    return had !== undefined;
  }

  /** An operator's unlock of a client address. */
  async unlockAddress(address: string): Promise<boolean> {
    const had = await this.#data.failures(`addr:${address}`);
    await this.#data.clearFailures(`addr:${address}`);
    return had !== undefined;
  }
}

function lockedError(scope: string, remainingMs: number, now: number): TooManyRequests {
  const minutes = Math.max(1, Math.ceil(remainingMs / 60_000));
  const what = scope.startsWith('email:') ? 'this account' : 'your network address';
  const until = new Date(now + remainingMs).toISOString().slice(11, 16);
  return new TooManyRequests(
    `Too many failed sign-in attempts for ${what}. Sign-in is locked; try again in ${minutes} minute${minutes === 1 ? '' : 's'} ` +
      `(at ${until} UTC), or ask an operator to unlock it.`,
    remainingMs / 1000,
  );
}
