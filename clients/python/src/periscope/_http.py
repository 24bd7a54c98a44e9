"""HTTP with the standard library: one request, its answer or a typed error, and retries.

Every endpoint is described once as a :class:`Call` (see ``_endpoints.py``); :class:`HttpClient`
sends it from the calling thread, :class:`AsyncHttpClient` from a worker thread
(``asyncio.to_thread``) so that the event loop is never blocked, both with the same
:class:`~periscope._retry.RetryPolicy`.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Mapping, Optional, TypeVar

from ._errors import PeriscopeConnectionError, PeriscopeError, PeriscopeTimeoutError, error_from_response
from ._retry import RetryPolicy
from ._version import __version__

__all__ = ["Call", "Response", "HttpClient", "AsyncHttpClient", "USER_AGENT"]

T = TypeVar("T")

USER_AGENT = f"periscope-python/{__version__}"


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


@dataclass(frozen=True)
class Call(Generic[T]):
    """One endpoint call: what to send, and how to read a successful answer."""

    method: str
    path: str
    parse: Callable[[Response], T]
    query: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Optional[bytes] = None
    #: Seconds the service may work on this call (a page action's own ``timeoutMs``): the
    #: client then waits at least that long, whatever its own ``timeout``.
    works_for: Optional[float] = None


class HttpClient:
    """Sends :class:`Call` s to one service with the key's ``Authorization`` header."""

    def __init__(self, base_url: str, api_key: str, timeout: float, retry: RetryPolicy) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retry = retry
        self.authorization = f"Bearer {api_key}"
        # urllib's default handlers (proxies from the environment included), with connections
        # that read an answer the service sent before taking the whole body.
        self._opener = urllib.request.build_opener(_HTTPHandler, _HTTPSHandler)

    def url(self, path: str, query: Optional[Mapping[str, str]] = None) -> str:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        return url

    def send_once(self, call: "Call[Any]") -> Response:
        """One request; a 2xx answer, or the typed error for anything else."""
        headers = {"Authorization": self.authorization, "User-Agent": USER_AGENT, "Accept": "application/json"}
        headers.update(call.headers)
        request = urllib.request.Request(
            self.url(call.path, call.query), data=call.body, headers=headers, method=call.method
        )
        try:
            with self._opener.open(request, timeout=max(self.timeout, call.works_for or 0)) as answer:
                return Response(answer.status, dict(answer.headers.items()), answer.read())
        except urllib.error.HTTPError as err:
            try:
                body = err.read()
            except (OSError, http.client.HTTPException):
                body = b""
            finally:
                err.close()
            raise error_from_response(err.code, dict(err.headers.items()), body) from None
        except urllib.error.URLError as err:
            raise _transport_error(err.reason, call, self.timeout) from err
        except (OSError, http.client.HTTPException) as err:
            raise _transport_error(err, call, self.timeout) from err

    def call(self, call: "Call[T]") -> T:
        """Send with the retry policy (429 and 502, honouring ``Retry-After``); the parsed answer."""
        attempt, waited = 0, 0.0
        while True:
            try:
                response = self.send_once(call)
            except PeriscopeError as err:
                delay = self.retry.delay(err, attempt, waited)
                if delay is None:
                    raise
            else:
                return parse(call, response)
            time.sleep(delay)
            attempt, waited = attempt + 1, waited + delay


class AsyncHttpClient:
    """The same calls for asyncio: each request on a worker thread, the waits on the event loop."""

    def __init__(self, sync: HttpClient) -> None:
        self.sync = sync

    async def call(self, call: "Call[T]") -> T:
        attempt, waited = 0, 0.0
        while True:
            try:
                response = await asyncio.to_thread(self.sync.send_once, call)
            except PeriscopeError as err:
                delay = self.sync.retry.delay(err, attempt, waited)
                if delay is None:
                    raise
            else:
                return parse(call, response)
            await asyncio.sleep(delay)
            attempt, waited = attempt + 1, waited + delay


def parse(call: "Call[T]", response: Response) -> T:
    """The call's reading of a 2xx answer; one it cannot read is a :class:`PeriscopeError`."""
    try:
        return call.parse(response)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise PeriscopeError(
            f"{call.method} {call.path}: unexpected answer ({type(err).__name__}: {err})",
            status=response.status,
            body=response.body[:1000].decode("utf-8", "replace"),
        ) from err


class _EarlyAnswerMixin:
    """A connection that stops sending a body the server has refused, and reads its answer.

    The service refuses a file over its limit from its ``Content-Length`` with ``413`` and
    ``Connection: close``, before reading it; a client still sending then meets a broken pipe
    or a reset, while the answer is already in its receive buffer. ``getresponse()`` reads it;
    when there is none it fails as the lost connection it is.
    """

    def send(self, data: Any) -> None:
        try:
            super().send(data)  # type: ignore[misc]
        except (BrokenPipeError, ConnectionResetError):
            pass


class _HTTPConnection(_EarlyAnswerMixin, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_EarlyAnswerMixin, http.client.HTTPSConnection):
    pass


_CONNECTIONS: Mapping[type, type] = {
    http.client.HTTPConnection: _HTTPConnection,
    http.client.HTTPSConnection: _HTTPSConnection,
}


class _HTTPHandler(urllib.request.HTTPHandler):
    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        return super().do_open(_CONNECTIONS.get(http_class, http_class), req, **kwargs)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        return super().do_open(_CONNECTIONS.get(http_class, http_class), req, **kwargs)


def _transport_error(reason: object, call: "Call[Any]", timeout: float) -> PeriscopeError:
    what = f"{call.method} {call.path}"
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return PeriscopeTimeoutError(f"{what}: no answer within {timeout:g} s")
    return PeriscopeConnectionError(f"{what}: {reason}")
