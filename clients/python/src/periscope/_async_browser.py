"""A cloud browser for asyncio code: its ``/start`` socket held by a task on the caller's loop."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any, Dict, Generator, List, Mapping, Optional, Type

from . import _endpoints as api
from ._errors import PeriscopeTimeoutError
from ._http import AsyncHttpClient
from ._socket import StartSocket, cdp_url_of, open_start_socket
from ._types import DownloadedFile, Ended, UploadedFile

__all__ = ["AsyncBrowser", "BrowserStart"]


class AsyncBrowser:
    """A live remote browser, for as long as this object holds its ``/start`` socket.

    Made by :meth:`periscope.AsyncPeriscope.browser`. websockets' tasks answer the service's pings on
    the running event loop, and a task of this object watches for the end, until :meth:`stop`, the
    end of the ``async with`` block, or the service ending the browser.
    """

    #: The browser's DevTools address (``webSocketDebuggerUrl`` of ``/json/version``).
    cdp_url: str
    #: The same address with a ticket for this browser alone, for tools that take only an address
    #: (no headers); ``None`` from a service that does not offer it (``connectUrl`` of ``/json/version``).
    connect_url: Optional[str]

    def __init__(self, http: AsyncHttpClient, socket: StartSocket) -> None:
        self._http = http
        self._socket = socket
        self.id = socket.id
        self._watch: "asyncio.Future[Ended]" = asyncio.ensure_future(socket.wait_ended())

    @classmethod
    async def open(cls, http: AsyncHttpClient, url: str, headers: Mapping[str, str], timeout: float) -> "AsyncBrowser":
        browser = cls(http, await open_start_socket(url, headers, timeout))
        try:
            version = await browser.version()
            browser.cdp_url = cdp_url_of(version)
            browser.connect_url = version.get("connectUrl")
        except BaseException:
            await asyncio.shield(browser.stop())
            raise
        return browser

    # --- the browser's life ---------------------------------------------------------------------

    @property
    def headers(self) -> Dict[str, str]:
        """The headers the browser's other endpoints need: ``Authorization`` and ``X-Browser-ID``."""
        return {"Authorization": self._http.sync.authorization, "X-Browser-ID": self.id}

    @property
    def ended(self) -> Optional[Ended]:
        """How the browser ended; ``None`` while it lives."""
        return self._watch.result() if self._watch.done() else None

    async def wait_ended(self, timeout: Optional[float] = None) -> Ended:
        """Wait until the browser ends (the service ended it, or :meth:`stop`); how it ended."""
        try:
            return await asyncio.wait_for(asyncio.shield(self._watch), timeout)
        except asyncio.TimeoutError:
            raise PeriscopeTimeoutError(f"browser {self.id} still live after {timeout:g} s") from None

    async def stop(self) -> Ended:
        """End the browser (closing its socket with 1000) and wait until it is closed; idempotent."""
        if not self._watch.done():
            await self._socket.close()
        return await asyncio.shield(self._watch)

    async def __aenter__(self) -> "AsyncBrowser":
        return self

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        await self.stop()

    def __repr__(self) -> str:
        state = "live" if self.ended is None else f"ended: {self.ended.reason}"
        return f"<AsyncBrowser {self.id} {state}>"

    # --- its endpoints ------------------------------------------------------------------------------

    async def version(self) -> Dict[str, Any]:
        """``GET /json/version``: Chromium's version object, ``webSocketDebuggerUrl`` included."""
        return await self._http.call(api.json_version(self.id))

    async def upload(self, name: str, data: api.FileData) -> UploadedFile:
        """Put a file in the browser's uploads folder (for ``<input type=file>``); its ``path`` is what to hand Chromium."""
        return await self._http.call(api.upload(self.id, name, data))

    async def uploads(self) -> List[UploadedFile]:
        return await self._http.call(api.uploads(self.id))

    async def delete_upload(self, name: str) -> None:
        await self._http.call(api.delete_upload(self.id, name))

    async def downloads(self) -> List[DownloadedFile]:
        """What the browser downloaded, oldest first; ``complete=False`` while still being written."""
        return await self._http.call(api.downloads(self.id))

    async def download(self, name: str) -> bytes:
        """The bytes of a completed download."""
        return await self._http.call(api.download(self.id, name))


class BrowserStart:
    """What :meth:`periscope.AsyncPeriscope.browser` returns: await it, or use it with ``async with``.

    ``b = await client.browser()`` gives the :class:`AsyncBrowser` (stop it yourself);
    ``async with client.browser() as b:`` stops it when the block ends.
    """

    def __init__(self, http: AsyncHttpClient, url: str, headers: Mapping[str, str], timeout: float) -> None:
        self._args = (http, url, dict(headers), timeout)
        self._browser: Optional[AsyncBrowser] = None

    def __await__(self) -> Generator[Any, None, AsyncBrowser]:
        return AsyncBrowser.open(*self._args).__await__()

    async def __aenter__(self) -> AsyncBrowser:
        self._browser = await AsyncBrowser.open(*self._args)
        return self._browser

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        if self._browser is not None:
            await self._browser.stop()
