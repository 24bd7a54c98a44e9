"""The ``/start`` WebSocket (docs/api.md, section 1) on asyncio, with either websockets API.

websockets 13 and later have ``websockets.asyncio.client`` (``additional_headers``, refusals as
``InvalidStatus`` carrying the whole response); earlier versions, Debian's 10.4 among them, have
the legacy client (``extra_headers``, ``InvalidStatusCode`` without the body). Which one is there
is found out once, at import. Either way a refusal before the handshake becomes the same typed
error as an HTTP answer with that status and JSON body.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Dict, Mapping, Optional, Tuple

from ._errors import PeriscopeConnectionError, PeriscopeError, PeriscopeTimeoutError, error_from_response
from ._http import USER_AGENT
from ._types import CLOSE_CODES, Ended

try:  # websockets >= 13
    from websockets.asyncio.client import connect as _connect_new

    _NEW_API = True
except ImportError:  # websockets < 13: the legacy asyncio client
    _NEW_API = False

from websockets.exceptions import ConnectionClosed, InvalidHandshake, WebSocketException

__all__ = ["StartSocket", "open_start_socket", "cdp_url_of", "websockets_api"]

BROWSER_ID_RE = re.compile(r"^br_[A-Za-z0-9_-]{32}$")

#: A refusal's body is a short JSON object; more than this is not read.
_MAX_REFUSAL_BODY = 64 * 1024
#: The service sends one short message, the browser id.
_MAX_MESSAGE = 64 * 1024

#: How long a clean close waits for the service's answering close frame.
CLOSE_TIMEOUT = 5.0


def websockets_api() -> str:
    """``"asyncio"`` (websockets >= 13) or ``"legacy"``: which client this process uses."""
    return "asyncio" if _NEW_API else "legacy"


class StartSocket:
    """An open ``/start`` socket: the browser's id, and its end once it ends.

    While it is open, websockets' own tasks answer the service's pings (and ping it, to notice a
    dead connection), on whatever event loop opened it.
    """

    def __init__(self, ws: Any, browser_id: str) -> None:
        self._ws = ws
        self.id = browser_id
        self._closing = False

    async def wait_ended(self) -> Ended:
        """Wait until the socket closes, whoever closes it, and say how it ended."""
        try:
            while True:
                await self._ws.recv()  # the service sends nothing more; read to see the close
        except ConnectionClosed as closed:
            return _ended(closed, self._closing)
        except (WebSocketException, OSError) as exc:
            return Ended("connection_lost", 1006, str(exc))

    async def close(self) -> None:
        """Close with 1000: the service ends the browser at once."""
        self._closing = True
        await self._ws.close()


async def open_start_socket(url: str, headers: Mapping[str, str], timeout: float) -> StartSocket:
    """Open ``/start`` and read the browser id within ``timeout`` seconds; refusals raise typed errors.

    On a timeout the error is raised at once; closing the half-open connection goes on in the
    background (a WebSocket client waits a moment for the server to close first).
    """
    opening = asyncio.ensure_future(_open(url, dict(headers)))
    try:
        done, _ = await asyncio.wait({opening}, timeout=timeout)
    except BaseException:  # cancelled: a browser obtained meanwhile must not be left behind
        opening.cancel()
        raise
    if not done:
        opening.cancel()
        raise PeriscopeTimeoutError(f"/start: no browser within {timeout:g} s")
    return opening.result()


async def _open(url: str, headers: Dict[str, str]) -> StartSocket:
    try:
        ws = await _connect(url, headers)
    except PeriscopeError:
        raise
    except InvalidHandshake as exc:
        refusal = _refusal(exc)
        if refusal is None:
            raise PeriscopeConnectionError(f"/start: {exc}") from exc
        raise refusal from None
    except (OSError, WebSocketException) as exc:
        raise PeriscopeConnectionError(f"/start: {exc}") from exc
    try:
        message = await ws.recv()
    except BaseException as exc:
        await _abandon(ws)
        if isinstance(exc, ConnectionClosed):
            raise PeriscopeConnectionError(f"/start closed before the browser id: {exc}") from exc
        raise
    if not isinstance(message, str) or not BROWSER_ID_RE.match(message):
        await _abandon(ws)
        raise PeriscopeError(f"/start sent {message!r}, not a browser id")
    return StartSocket(ws, message)


def cdp_url_of(version: Mapping[str, Any]) -> str:
    """The DevTools address in a ``/json/version`` answer."""
    url = version.get("webSocketDebuggerUrl")
    if not isinstance(url, str) or not url:
        raise PeriscopeError("/json/version answered without a webSocketDebuggerUrl")
    return url


async def _abandon(ws: Any) -> None:
    try:
        await asyncio.wait_for(ws.close(), CLOSE_TIMEOUT)
    except BaseException:  # noqa: BLE001 - closing what failed; the first error is the one to raise
        pass


def _ended(closed: ConnectionClosed, closing: bool) -> Ended:
    rcvd = closed.rcvd
    # The service's close frame says why, unless it only answered ours.
    if rcvd is not None and not (closing and closed.rcvd_then_sent is False):
        return Ended(CLOSE_CODES.get(rcvd.code, "unknown"), rcvd.code, rcvd.reason)
    if closing:
        return Ended("closed_by_client", 1000, "")
    return Ended("connection_lost", 1006, str(closed))


if _NEW_API:

    async def _connect(url: str, headers: Dict[str, str]) -> Any:
        return await _connect_new(
            url,
            additional_headers=headers,
            user_agent_header=USER_AGENT,
            open_timeout=None,  # open_start_socket keeps the one deadline
            close_timeout=CLOSE_TIMEOUT,
            max_size=_MAX_MESSAGE,
        )

    def _refusal(exc: InvalidHandshake) -> Optional[PeriscopeError]:
        response = getattr(exc, "response", None)
        if response is None:
            return None
        return error_from_response(response.status_code, dict(response.headers.raw_items()), response.body or b"")

else:
    from websockets.exceptions import InvalidStatusCode
    from websockets.legacy.client import WebSocketClientProtocol
    from websockets.legacy.client import connect as _connect_legacy

    class _Protocol(WebSocketClientProtocol):
        """The legacy client, reading a refusal's body too and raising it as a typed error.

        The legacy ``read_http_response`` leaves a response's body in ``self.reader`` (as its
        docstring says); for a status other than 101 this reads it (up to its ``Content-Length``,
        at most 64 KiB) before the handshake fails.
        """

        _refusal_body = b""

        async def read_http_response(self) -> Tuple[int, Any]:
            status, headers = await super().read_http_response()
            if status != 101:
                self._refusal_body = await self._read_body(headers)
            return status, headers

        async def _read_body(self, headers: Any) -> bytes:
            length = headers.get("Content-Length")
            try:
                if length is not None and length.strip().isdigit():
                    return await self.reader.readexactly(min(int(length), _MAX_REFUSAL_BODY))
                return await self.reader.read(_MAX_REFUSAL_BODY)
            except (asyncio.IncompleteReadError, OSError):
                return b""

        async def handshake(self, *args: Any, **kwargs: Any) -> None:
            try:
                await super().handshake(*args, **kwargs)
            except InvalidStatusCode as exc:
                raise error_from_response(exc.status_code, dict(exc.headers.raw_items()), self._refusal_body) from None

    async def _connect(url: str, headers: Dict[str, str]) -> Any:
        return await _connect_legacy(
            url,
            create_protocol=_Protocol,
            extra_headers=headers,
            user_agent_header=USER_AGENT,
            open_timeout=None,  # open_start_socket keeps the one deadline
            close_timeout=CLOSE_TIMEOUT,
            max_size=_MAX_MESSAGE,
        )

    def _refusal(exc: InvalidHandshake) -> Optional[PeriscopeError]:
        if isinstance(exc, InvalidStatusCode):
            return error_from_response(exc.status_code, dict(exc.headers.raw_items()), b"")
        return None
