"""A cloud browser for synchronous code: its ``/start`` socket held on a thread of its own."""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType
from typing import Any, Dict, List, Mapping, Optional, Type

from . import _endpoints as api
from ._errors import PeriscopeTimeoutError
from ._http import HttpClient
from ._socket import CLOSE_TIMEOUT, StartSocket, cdp_url_of, open_start_socket
from ._types import DownloadedFile, Ended, UploadedFile

__all__ = ["Browser"]


class Browser:
    """A live remote browser, for as long as this object holds its ``/start`` socket.

    Made by :meth:`periscope.Periscope.browser`, which returns once the browser is ready. A thread
    runs an event loop holding the socket (answering the service's pings) until :meth:`stop`, the
    end of the ``with`` block, or the service ending the browser; it then ends too.

    Connect Playwright with ``chromium.connect_over_cdp(b.cdp_url, headers=b.headers)``.
    """

    id: str
    #: The browser's DevTools address (``webSocketDebuggerUrl`` of ``/json/version``).
    cdp_url: str
    #: The same address with a ticket for this browser alone, for tools that take only an address
    #: (no headers); ``None`` from a service that does not offer it (``connectUrl`` of ``/json/version``).
    connect_url: Optional[str]

    def __init__(self, http: HttpClient, url: str, headers: Mapping[str, str], timeout: float) -> None:
        self._http = http
        self._ready = threading.Event()
        self._done = threading.Event()
        self._open_error: Optional[BaseException] = None
        self._ended: Optional[Ended] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._stop_requested: Optional[asyncio.Event] = None
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._hold(url, dict(headers), timeout),), name="periscope-browser", daemon=True
        )
        self._thread.start()
        try:
            self._ready.wait()
        except BaseException:  # interrupted: do not leave a browser behind
            self._request_stop()
            raise
        if self._open_error is not None:
            self._thread.join(CLOSE_TIMEOUT + 5)
            raise self._open_error
        try:
            version = self.version()
            self.cdp_url = cdp_url_of(version)
            self.connect_url = version.get("connectUrl")
        except BaseException:
            self.stop()
            raise

    async def _hold(self, url: str, headers: Dict[str, str], timeout: float) -> None:
        """The thread's one coroutine: open the socket, then hold it until it ends or stop()."""
        try:
            self._loop = asyncio.get_running_loop()
            self._stop_requested = asyncio.Event()
            socket = await open_start_socket(url, headers, timeout)
        except BaseException as exc:  # handed to the thread that asked for the browser
            self._open_error = exc
            self._done.set()
            self._ready.set()
            return
        self.id = socket.id
        self._ready.set()
        try:
            self._ended = await self._until_ended(socket, self._stop_requested)
        except BaseException as exc:  # the thread must still say how the browser ended
            self._ended = Ended("connection_lost", 1006, f"{type(exc).__name__}: {exc}")
            if not isinstance(exc, Exception):
                raise
        finally:
            self._done.set()

    @staticmethod
    async def _until_ended(socket: StartSocket, stop_requested: asyncio.Event) -> Ended:
        ended = asyncio.ensure_future(socket.wait_ended())
        stop = asyncio.ensure_future(stop_requested.wait())
        await asyncio.wait({ended, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not ended.done():
            await socket.close()
        return await ended

    def _request_stop(self) -> None:
        loop, event = self._loop, self._stop_requested
        if loop is None or event is None:
            return
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:  # the loop has already finished: the browser has ended
            pass

    # --- the browser's life ---------------------------------------------------------------------

    @property
    def headers(self) -> Dict[str, str]:
        """The headers the browser's other endpoints need: ``Authorization`` and ``X-Browser-ID``."""
        return {"Authorization": self._http.authorization, "X-Browser-ID": self.id}

    @property
    def ended(self) -> Optional[Ended]:
        """How the browser ended; ``None`` while it lives."""
        return self._ended if self._done.is_set() else None

    def wait_ended(self, timeout: Optional[float] = None) -> Ended:
        """Block until the browser ends (the service ended it, or :meth:`stop`); how it ended."""
        if not self._done.wait(timeout):
            raise PeriscopeTimeoutError(f"browser {self.id} still live after {timeout:g} s")
        assert self._ended is not None
        return self._ended

    def stop(self) -> Ended:
        """End the browser (closing its socket with 1000) and wait for the thread; idempotent."""
        self._request_stop()
        self._thread.join(CLOSE_TIMEOUT + 5)
        if self._thread.is_alive():  # pragma: no cover - websockets gave up closing
            raise PeriscopeTimeoutError(f"browser {self.id} did not close within {CLOSE_TIMEOUT + 5:g} s")
        assert self._ended is not None
        return self._ended

    def __enter__(self) -> "Browser":
        return self

    def __exit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "live" if self.ended is None else f"ended: {self.ended.reason}"
        return f"<Browser {self.id} {state}>"

    # --- its endpoints ------------------------------------------------------------------------------

    def version(self) -> Dict[str, Any]:
        """``GET /json/version``: Chromium's version object, ``webSocketDebuggerUrl`` included."""
        return self._http.call(api.json_version(self.id))

    def upload(self, name: str, data: api.FileData) -> UploadedFile:
        """Put a file in the browser's uploads folder (for ``<input type=file>``); its ``path`` is what to hand Chromium."""
        return self._http.call(api.upload(self.id, name, data))

    def uploads(self) -> List[UploadedFile]:
        return self._http.call(api.uploads(self.id))

    def delete_upload(self, name: str) -> None:
        self._http.call(api.delete_upload(self.id, name))

    def downloads(self) -> List[DownloadedFile]:
        """What the browser downloaded, oldest first; ``complete=False`` while still being written."""
        return self._http.call(api.downloads(self.id))

    def download(self, name: str) -> bytes:
        """The bytes of a completed download."""
        return self._http.call(api.download(self.id, name))
