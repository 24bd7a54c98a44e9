"""One hierarchy of errors for every call: HTTP answers, /start refusals and transport failures.

The service answers every error as JSON ``{"error": str, "code": str, "issues"?: [...]}``
(docs/api.md, "Error codes"). A status this module does not name is still a
:class:`PeriscopeError` carrying the status and the code, as the docs ask of clients.
"""

from __future__ import annotations

import email.utils
import json
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Type

__all__ = [
    "PeriscopeError",
    "BadRequestError",
    "AuthenticationError",
    "NotFoundError",
    "ConflictError",
    "PayloadTooLargeError",
    "RateLimitError",
    "BadGatewayError",
    "UnavailableError",
    "PeriscopeTimeoutError",
    "PeriscopeConnectionError",
    "FieldIssue",
]


@dataclass(frozen=True)
class FieldIssue:
    """One field a 400 ``invalid`` answer names, and what is wrong with it."""

    field: str
    message: str


class PeriscopeError(Exception):
    """Anything that went wrong talking to Periscope.

    ``status`` is the HTTP status (``None`` when no answer came), ``code`` the service's error code
    (``"rate_limited"``, ...), ``message`` its sentence for people and ``body`` the decoded JSON
    body, or the raw text when it was not JSON. ``retry_after`` is the wait in seconds the service
    asked for with ``Retry-After``, when it did.
    """

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        code: Optional[str] = None,
        body: Any = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.body = body
        self.retry_after = retry_after

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None:
            parts.append(f"(HTTP {self.status}{', ' + self.code if self.code else ''})")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, message={self.message!r})"


class BadRequestError(PeriscopeError):
    """400: the request broke the rules. ``issues`` names each field; ``field`` is the first one."""

    def __init__(self, message: str, *, issues: Optional[List[FieldIssue]] = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.issues: List[FieldIssue] = list(issues or [])

    @property
    def field(self) -> Optional[str]:
        return self.issues[0].field if self.issues else None


class AuthenticationError(PeriscopeError):
    """401: the API key is missing, malformed, unknown or revoked."""


class NotFoundError(PeriscopeError):
    """404: no such path, browser (ended, unknown or another key's) or file."""


class ConflictError(PeriscopeError):
    """409: the thing is in a state that does not allow it (a download still being written)."""


class PayloadTooLargeError(PeriscopeError):
    """413: the body or file is over its limit."""


class RateLimitError(PeriscopeError):
    """429: over a per-key limit (searches per window, concurrent browsers); see ``retry_after``."""


class BadGatewayError(PeriscopeError):
    """502: something behind the service (the index, Chromium) failed; retrying usually helps."""


class UnavailableError(PeriscopeError):
    """503: the service cannot serve this now (capacity, shutting down); see ``retry_after``."""


class PeriscopeTimeoutError(PeriscopeError):
    """No answer within the client's timeout."""


class PeriscopeConnectionError(PeriscopeError):
    """The service could not be reached, or the connection broke before an answer."""


_BY_STATUS: Mapping[int, Type[PeriscopeError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    429: RateLimitError,
    502: BadGatewayError,
    503: UnavailableError,
}


def parse_retry_after(value: Optional[str], *, now: Optional[float] = None) -> Optional[float]:
    """``Retry-After`` as seconds from now: delta-seconds or an HTTP date; ``None`` if absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def error_from_response(status: int, headers: Mapping[str, str], body: bytes) -> PeriscopeError:
    """The typed error for an error answer: its status, the JSON body's code, message and issues."""
    decoded: Any
    try:
        decoded = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError):
        decoded = body.decode("utf-8", "replace")
    fields: Dict[str, Any] = decoded if isinstance(decoded, dict) else {}
    message = fields.get("error")
    if not isinstance(message, str) or not message:
        message = f"HTTP {status}"
    code = fields.get("code") if isinstance(fields.get("code"), str) else None
    retry_after = parse_retry_after(_header(headers, "retry-after"))
    cls = _BY_STATUS.get(status, PeriscopeError)
    common: Dict[str, Any] = {"status": status, "code": code, "body": decoded, "retry_after": retry_after}
    if cls is BadRequestError:
        return BadRequestError(message, issues=_issues(fields.get("issues")), **common)
    return cls(message, **common)


def _issues(raw: Any) -> List[FieldIssue]:
    if not isinstance(raw, list):
        return []
    return [
        FieldIssue(field=str(item.get("field", "")), message=str(item.get("message", "")))
        for item in raw
        if isinstance(item, dict)
    ]


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None
