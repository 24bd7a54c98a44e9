'use client';
import { Alert } from '#app/_ui/alert.tsx';
import { Button } from '#app/_ui/button.tsx';
import { Link } from '#app/_ui/link.tsx';
import { MAX_UPSTREAM_RETRIES, type SearchError } from './search-api.ts';
import { formatSeconds, secondsLeft, useNow } from './use-now.ts';

type Props = {
  error: SearchError;
  teamId: string;
  /** Upstream failures: how many attempts failed so far, and whether another one is coming. */
  failures: number;
  retrying: boolean;
  /** 429: whether the page will still retry by itself at the reset. */
  willRetry: boolean;
  onRetry: () => void;
};

/** What went wrong, in words, and what the user can do about it. */
export function SearchFailure({ error, teamId, failures, retrying, willRetry, onRetry }: Props) {
  const now = useNow(error.code === 'rate_limited');
  const keysLink = <Link href={`/teams/${teamId}/keys`}>API keys page</Link>;
  switch (error.code) {
    case 'rate_limited': {
      const wait = secondsLeft(error.at, error.retryAfterSeconds ?? 1, now);
      return (
        <div data-testid="search-state" data-state="rate-limited">
          <Alert tone="warning">
            <strong>Search limit reached.</strong>{' '}
            {wait > 0 ? (
              <>
                This team&apos;s key can search again in <strong data-testid="retry-countdown">{formatSeconds(wait)}</strong>.
                {willRetry ? ' The page will search again by itself then.' : ''}
              </>
            ) : willRetry ? (
              'Searching again…'
            ) : (
              'You can search again now.'
            )}
          </Alert>
          {!willRetry && wait === 0 && <Button onClick={onRetry}>Search again</Button>}
        </div>
      );
    }
    case 'upstream_failed':
      return (
        <div data-testid="search-state" data-state={retrying ? 'retrying' : 'failed'} className="stack-sm">
          <Alert tone={retrying ? 'warning' : 'error'}>
            {retrying ? (
              <>
                <strong>The search service did not answer.</strong> Retrying (attempt {failures + 1} of {MAX_UPSTREAM_RETRIES + 1})…
              </>
            ) : (
              <>
                <strong>The search service is not answering.</strong> {error.message} The portal tried {failures} times; try again in a
                minute.
              </>
            )}
          </Alert>
          {!retrying && (
            <div>
              <Button onClick={onRetry}>Try again</Button>
            </div>
          )}
        </div>
      );
    case 'key_refused':
      return (
        <div data-testid="search-state" data-state="key-refused">
          <Alert tone="error">
            <strong>The search service refused this team&apos;s API key</strong> (it was revoked or is unknown there). Choose another
            default key or create a new one on the {keysLink}.
          </Alert>
        </div>
      );
    case 'no_key':
      return (
        <div data-testid="search-state" data-state="no-key">
          <Alert tone="warning">This team has no default API key to search with. Create or choose one on the {keysLink}.</Alert>
        </div>
      );
    case 'invalid':
      return (
        <div data-testid="search-state" data-state="invalid">
          <Alert tone="error">{error.message}</Alert>
        </div>
      );
    default:
      return (
        <div data-testid="search-state" data-state="failed" className="stack-sm">
          <Alert tone="error">{error.message}</Alert>
          <div>
            <Button onClick={onRetry}>Try again</Button>
          </div>
        </div>
      );
  }
}
