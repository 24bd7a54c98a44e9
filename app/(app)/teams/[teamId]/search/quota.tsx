'use client';
import type { RateState } from '#portal/search/types.ts';
import { formatSeconds, secondsLeft, useNow } from './use-now.ts';

export type SeenRate = { rate: RateState; receivedAt: number };

/** This window's remaining searches of the team's key, counting down to the reset. */
export function QuotaIndicator({ seen }: { seen: SeenRate | null }) {
  const now = useNow(Boolean(seen));
  if (!seen) {
    return (
      <p className="quota muted" data-testid="quota">
        Searches left: shown after your first search.
      </p>
    );
  }
  const { limit, windowSeconds } = seen.rate;
  // Never longer than the window itself: "1 min 01 s" beside "this minute" reads as a mistake.
  const wait = Math.min(secondsLeft(seen.receivedAt, seen.rate.resetSeconds, now), windowSeconds ?? Infinity);
  const remaining = wait === 0 ? limit : seen.rate.remaining;
  const per = windowSeconds === 60 ? 'this minute' : windowSeconds ? `per ${windowSeconds} s` : 'now';
  const pct = limit ? Math.round((remaining / limit) * 100) : 0;
  return (
    <div className={`quota${remaining === 0 ? ' quota-out' : ''}`} data-testid="quota" role="status" aria-live="polite">
      <div className="quota-bar" aria-hidden="true">
        <span style={{ width: `${pct}%` }} />
      </div>
      <span>
        <strong data-testid="quota-remaining">{remaining}</strong> of {limit} searches left {per}
        {wait > 0 && remaining === 0 && (
          <>
            {' '}
            · next search possible in <strong data-testid="quota-reset">{formatSeconds(wait)}</strong>
          </>
        )}
        {wait > 0 && remaining > 0 && remaining < limit && (
          <>
            {' '}
            · all back in <span data-testid="quota-reset">{formatSeconds(wait)}</span>
          </>
        )}
      </span>
    </div>
  );
}
