"""When to retry an HTTP call: a pure decision, shared by the sync and the async client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ._errors import BadGatewayError, PeriscopeError, RateLimitError, UnavailableError

__all__ = ["RetryPolicy"]

#: The statuses worth asking again, as the TypeScript client does (decision 0100): over the rate
#: limit (after ``Retry-After``), the index or Chromium failing behind the service, and the service
#: unable to answer for now (its Redis out of reach, a node draining; usually passing).
_RETRIED = (RateLimitError, BadGatewayError, UnavailableError)


@dataclass(frozen=True)
class RetryPolicy:
    """Retry 429, 502 and 503 answers up to ``max_retries`` times.

    The wait is the answer's ``Retry-After`` when it has one, else an exponential backoff from
    ``backoff`` seconds. All the waits of one call together never pass ``max_wait`` seconds: a
    ``Retry-After`` that would is not waited for, and the error is raised at once (with its
    ``retry_after``, so the caller can decide).
    """

    max_retries: int = 2
    max_wait: float = 60.0
    backoff: float = 0.5
    max_backoff: float = 8.0

    def delay(self, error: PeriscopeError, attempt: int, waited: float) -> Optional[float]:
        """Seconds to wait before retry number ``attempt + 1``, or ``None`` to give up.

        ``attempt`` counts the retries already made (0 after the first answer); ``waited`` is the
        time already spent waiting in this call.
        """
        if attempt >= self.max_retries or not isinstance(error, _RETRIED):
            return None
        if error.retry_after is not None:
            wait = max(0.0, error.retry_after)
        else:
            wait = min(self.max_backoff, self.backoff * (2**attempt))
        if waited + wait > self.max_wait:
            return None
        return wait
