"""The asyncio client: :class:`AsyncPeriscope`, the same calls as :class:`periscope.Periscope`, awaited."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _endpoints as api
from ._async_browser import AsyncBrowser, BrowserStart
from ._config import ClientConfig
from ._http import AsyncHttpClient, HttpClient
from ._retry import RetryPolicy
from ._types import BrowserInfo, EventSearch, FetchResponse, ProfileInfo, Recording, SearchResponse

__all__ = ["AsyncPeriscope", "AsyncBrowsers", "AsyncRecordings", "AsyncBrowser", "BrowserStart"]


class AsyncPeriscope:
    """A client of one Periscope service for asyncio; the arguments are :class:`periscope.Periscope`'s.

    HTTP requests run on worker threads (``asyncio.to_thread``), the browsers' sockets on the
    running loop; nothing blocks the loop.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> None:
        self._config = ClientConfig.resolve(api_key, base_url, timeout, max_retries)
        self._http = AsyncHttpClient(
            HttpClient(
                self._config.base_url,
                self._config.api_key,
                self._config.timeout,
                RetryPolicy(max_retries=self._config.max_retries),
            )
        )
        self.browsers = AsyncBrowsers(self._http)
        self.recordings = AsyncRecordings(self._http)
        self.profiles = AsyncProfiles(self._http)

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def timeout(self) -> float:
        return self._config.timeout

    @property
    def max_retries(self) -> int:
        return self._config.max_retries

    def __repr__(self) -> str:
        return f"AsyncPeriscope(base_url={self.base_url!r})"

    def browser(
        self,
        *,
        profile: Optional[str] = None,
        persist: Optional[bool] = None,
        timeout: Optional[float] = None,
        queue: Optional[float] = None,
        proxy: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> BrowserStart:
        """Start a cloud browser: ``async with client.browser() as b:``, or ``b = await client.browser()``.

        The options are :meth:`periscope.Periscope.browser`'s.
        """
        url, sent = self._config.start_request(
            profile=profile, persist=persist, timeout=timeout, queue=queue, proxy=proxy, params=params, headers=headers
        )
        return BrowserStart(self._http, url, sent, self._config.timeout)

    async def search(
        self,
        query: str,
        *,
        language: Optional[str] = None,
        exact: Optional[bool] = None,
        count: Optional[int] = None,
        offset: Optional[int] = None,
        sites: Optional[Sequence[str]] = None,
        exclude_sites: Optional[Sequence[str]] = None,
    ) -> SearchResponse:
        """``POST /v0/search``: the best pages of the index for ``query``."""
        return await self._http.call(
            api.search(
                query,
                language=language,
                exact=exact,
                count=count,
                offset=offset,
                sites=sites,
                exclude_sites=exclude_sites,
            )
        )

    async def fetch(
        self,
        url: str,
        *,
        format: Optional[str] = None,
        wait_until: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        proxy: Optional[str] = None,
    ) -> FetchResponse:
        """``POST /v0/fetch``: a page as a real browser rendered it, its main content as Markdown
        (``format="html"`` or ``"text"`` for those), its title and links, in one call."""
        return await self._http.call(api.fetch_page(url, format=format, wait_until=wait_until, timeout_ms=timeout_ms, proxy=proxy))

    async def screenshot(
        self,
        url: str,
        *,
        format: Optional[str] = None,
        quality: Optional[int] = None,
        full_page: Optional[bool] = None,
        viewport: Optional[Tuple[int, int]] = None,
        wait_until: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        proxy: Optional[str] = None,
    ) -> bytes:
        """``POST /v0/screenshot``: the page's PNG (or ``format="jpeg"``) bytes; ``viewport=(width, height)``."""
        return await self._http.call(
            api.screenshot(
                url,
                format=format,
                quality=quality,
                full_page=full_page,
                viewport=viewport,
                wait_until=wait_until,
                timeout_ms=timeout_ms,
                proxy=proxy,
            )
        )

    async def pdf(
        self,
        url: str,
        *,
        format: Optional[str] = None,
        landscape: Optional[bool] = None,
        print_background: Optional[bool] = None,
        scale: Optional[float] = None,
        margin: Optional[Mapping[str, float]] = None,
        page_ranges: Optional[str] = None,
        wait_until: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        proxy: Optional[str] = None,
    ) -> bytes:
        """``POST /v0/pdf``: the page printed as PDF bytes (paper ``format`` such as ``"a4"``, margins in inches)."""
        return await self._http.call(
            api.pdf(
                url,
                format=format,
                landscape=landscape,
                print_background=print_background,
                scale=scale,
                margin=margin,
                page_ranges=page_ranges,
                wait_until=wait_until,
                timeout_ms=timeout_ms,
                proxy=proxy,
            )
        )

    async def health(self) -> Dict[str, Any]:
        """``GET /healthz``: whether the service can serve, its browsers and its index."""
        return await self._http.call(api.health())


class AsyncBrowsers:
    """The key's browsers: ``aperiscope.browsers``."""

    def __init__(self, http: AsyncHttpClient) -> None:
        self._http = http

    async def list(self, status: Optional[str] = None) -> List[BrowserInfo]:
        """Live browsers and those ended lately, newest first; ``status`` ``"live"`` or ``"ended"`` narrows."""
        return await self._http.call(api.list_browsers(status))

    async def stop(self, browser_id: str) -> None:
        """End one of the key's live browsers now (its socket closes with 4410, reason ``stopped``)."""
        await self._http.call(api.stop_browser(browser_id))

    async def recording(self, browser_id: str, after: Optional[int] = None) -> Recording:
        """A recorded browser's events (those after ``seq`` ``after``, to follow a live one)."""
        return await self._http.call(api.recording(browser_id, after))

    async def recording_frame(self, browser_id: str, offset: int, length: int) -> bytes:
        """One JPEG frame of the screen, from a ``frame`` event's ``offset`` and ``length``."""
        return await self._http.call(api.recording_frame(browser_id, offset, length))


class AsyncProfiles:
    """The key's saved browser profiles: ``aperiscope.profiles``; start from one with ``browser(profile=..., persist=...)``."""

    def __init__(self, http: AsyncHttpClient) -> None:
        self._http = http

    async def list(self) -> List[ProfileInfo]:
        """The key's saved profiles, by name."""
        return await self._http.call(api.list_profiles())

    async def delete(self, name: str) -> None:
        """Delete one: ``NotFoundError`` when the key has none of that name, ``ConflictError`` while a
        persisting browser holds it."""
        await self._http.call(api.delete_profile(name))


class AsyncRecordings:
    """Every recording of the key: ``aperiscope.recordings``."""

    def __init__(self, http: AsyncHttpClient) -> None:
        self._http = http

    async def events(
        self,
        *,
        q: Optional[str] = None,
        type: Optional[Union[str, Iterable[str]]] = None,
        status: Optional[Union[str, int]] = None,
        host: Optional[str] = None,
        since: Optional[Union[str, datetime]] = None,
        until: Optional[Union[str, datetime]] = None,
        limit: Optional[int] = None,
    ) -> EventSearch:
        """Search the recordings' events, newest first (``status="5xx", host="example.com"``)."""
        return await self._http.call(
            api.recording_events(q=q, type=type, status=status, host=host, since=since, until=until, limit=limit)
        )
