"""The retry decision on its own (the service tests above show it against real 429s)."""

from __future__ import annotations

from periscope import (
    BadGatewayError,
    BadRequestError,
    PeriscopeConnectionError,
    RateLimitError,
    RetryPolicy,
    UnavailableError,
)
from periscope._errors import error_from_response, parse_retry_after


def rate_limited(retry_after: float = None) -> RateLimitError:  # type: ignore[assignment]
    return RateLimitError("slow down", status=429, code="rate_limited", retry_after=retry_after)


def test_429_waits_for_retry_after_up_to_max_retries() -> None:
    policy = RetryPolicy(max_retries=2)
    assert policy.delay(rate_limited(3), attempt=0, waited=0) == 3
    assert policy.delay(rate_limited(3), attempt=1, waited=3) == 3
    assert policy.delay(rate_limited(3), attempt=2, waited=6) is None


def test_502_backs_off_without_retry_after() -> None:
    policy = RetryPolicy(max_retries=3, backoff=0.5)
    err = BadGatewayError("index locked", status=502, code="bad_gateway")
    assert [policy.delay(err, n, 0) for n in range(3)] == [0.5, 1.0, 2.0]


def test_503_waits_for_retry_after_as_the_typescript_client_does() -> None:
    policy = RetryPolicy(max_retries=2)
    busy = UnavailableError("redis away", status=503, code="unavailable", retry_after=2)
    assert [policy.delay(busy, n, 2 * n) for n in range(3)] == [2, 2, None]
    assert RetryPolicy(max_retries=0).delay(busy, attempt=0, waited=0) is None


def test_never_more_than_the_total_bound() -> None:
    policy = RetryPolicy(max_retries=5, max_wait=60)
    assert policy.delay(rate_limited(61), attempt=0, waited=0) is None
    assert policy.delay(rate_limited(30), attempt=1, waited=31) is None
    assert policy.delay(rate_limited(30), attempt=1, waited=30) == 30


def test_off_and_not_for_other_errors() -> None:
    assert RetryPolicy(max_retries=0).delay(rate_limited(1), attempt=0, waited=0) is None
    policy = RetryPolicy()
    for err in (
        BadRequestError("bad", status=400),
        PeriscopeConnectionError("down"),
    ):
        assert policy.delay(err, attempt=0, waited=0) is None


def test_retry_after_as_seconds_or_a_date() -> None:
    assert parse_retry_after("7") == 7
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480) == 10
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_unknown_statuses_keep_status_and_code() -> None:
    err = error_from_response(418, {}, b'{"error": "no coffee", "code": "teapot"}')
    assert type(err).__name__ == "PeriscopeError" and (err.status, err.code, err.message) == (418, "teapot", "no coffee")
    assert error_from_response(502, {}, b"<html>proxy</html>").message == "HTTP 502"
