"""The synchronous client: :class:`Periscope`."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _endpoints as api
from ._browser import Browser
from ._config import ClientConfig
from ._http import HttpClient
from ._retry import RetryPolicy
from ._types import BrowserInfo, EventSearch, FetchResponse, ProfileInfo, Recording, SearchResponse

__all__ = ["Periscope", "Browsers", "Recordings"]


class Periscope:
    """A client of one Periscope service.

    ``api_key`` defaults to ``$PERISCOPE_API_KEY`` and ``base_url`` to ``$PERISCOPE_URL`` (else
    ``http://127.0.0.1:3100``). ``timeout`` (seconds) bounds every call: each HTTP request's
    connection and reads, and the wait for a browser from ``/start``. ``max_retries`` is how many
    times an HTTP call answered 429 or 502 is tried again, after its ``Retry-After`` (all waits of
    one call together at most 60 s); 0 turns retries off. ``/start`` is never retried.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> None:
        self._config = ClientConfig.resolve(api_key, base_url, timeout, max_retries)
        self._http = HttpClient(
            self._config.base_url,
            self._config.api_key,
            self._config.timeout,
            RetryPolicy(max_retries=self._config.max_retries),
        )
        self.browsers = Browsers(self._http)
        self.recordings = Recordings(self._http)
        self.profiles = Profiles(self._http)

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
        return f"Periscope(base_url={self.base_url!r})"

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
    ) -> Browser:
        """Start a cloud browser; it lives until :meth:`Browser.stop` or the end of ``with``.

        ``profile``, ``persist``, ``timeout`` and ``queue`` are sent to ``/start`` as query
        parameters, ``proxy`` as the ``X-Browser-Proxy`` header, and ``params`` / ``headers`` as
        they are: the service decides what they mean (one that does not know one ignores it).
        Refusals raise the typed errors (401, 429 at the key's browser limit, 503 at capacity).
        """
        url, sent = self._config.start_request(
            profile=profile, persist=persist, timeout=timeout, queue=queue, proxy=proxy, params=params, headers=headers
        )
        return Browser(self._http, url, sent, self._config.timeout)

    def search(
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
        return self._http.call(
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

    def fetch(
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
        return self._http.call(api.fetch_page(url, format=format, wait_until=wait_until, timeout_ms=timeout_ms, proxy=proxy))

    def screenshot(
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
        return self._http.call(
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

    def pdf(
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
        return self._http.call(
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

    def health(self) -> Dict[str, Any]:
        """``GET /healthz``: whether the service can serve, its browsers and its index."""
        return self._http.call(api.health())


class Browsers:
    """The key's browsers: ``periscope.browsers``."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self, status: Optional[str] = None) -> List[BrowserInfo]:
        """Live browsers and those ended lately, newest first; ``status`` ``"live"`` or ``"ended"`` narrows."""
        return self._http.call(api.list_browsers(status))

    def stop(self, browser_id: str) -> None:
        """End one of the key's live browsers now (its socket closes with 4410, reason ``stopped``)."""
        self._http.call(api.stop_browser(browser_id))

    def recording(self, browser_id: str, after: Optional[int] = None) -> Recording:
        """A recorded browser's events (those after ``seq`` ``after``, to follow a live one)."""
        return self._http.call(api.recording(browser_id, after))

    def recording_frame(self, browser_id: str, offset: int, length: int) -> bytes:
        """One JPEG frame of the screen, from a ``frame`` event's ``offset`` and ``length``."""
        return self._http.call(api.recording_frame(browser_id, offset, length))


class Profiles:
    """The key's saved browser profiles: ``periscope.profiles``; start from one with ``browser(profile=..., persist=...)``."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self) -> List[ProfileInfo]:
        """The key's saved profiles, by name."""
        return self._http.call(api.list_profiles())

    def delete(self, name: str) -> None:
        """Delete one: ``NotFoundError`` when the key has none of that name, ``ConflictError`` while a
        persisting browser holds it."""
        self._http.call(api.delete_profile(name))


class Recordings:
    """Every recording of the key: ``periscope.recordings``."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def events(
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
        return self._http.call(
            api.recording_events(q=q, type=type, status=status, host=host, since=since, until=until, limit=limit)
        )
