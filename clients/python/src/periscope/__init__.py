"""Periscope's Python client: cloud browsers and web search of a Periscope service.

::

    from periscope import Periscope

    periscope = Periscope()  # $PERISCOPE_API_KEY, $PERISCOPE_URL
    with periscope.browser() as b:
        browser = playwright.chromium.connect_over_cdp(b.cdp_url, headers=b.headers)
        ...
    periscope.search("asyncio gather").results[0].url
"""

from ._async_browser import AsyncBrowser
from ._browser import Browser
from ._errors import (
    AuthenticationError,
    BadGatewayError,
    BadRequestError,
    ConflictError,
    FieldIssue,
    NotFoundError,
    PayloadTooLargeError,
    PeriscopeConnectionError,
    PeriscopeError,
    PeriscopeTimeoutError,
    RateLimitError,
    UnavailableError,
)
from ._retry import RetryPolicy
from ._types import (
    BrowserInfo,
    DownloadedFile,
    Ended,
    EndReason,
    EventMatch,
    EventSearch,
    PageInfo,
    ProfileInfo,
    Recording,
    RecordingEvent,
    SearchResponse,
    FetchResponse,
    SearchResult,
    SearchTry,
    UploadedFile,
)
from ._version import __version__
from .aio import AsyncPeriscope
from .client import Periscope

__all__ = [
    "__version__",
    "Periscope",
    "AsyncPeriscope",
    "Browser",
    "AsyncBrowser",
    "Ended",
    "EndReason",
    "SearchResponse",
    "FetchResponse",
    "SearchResult",
    "SearchTry",
    "UploadedFile",
    "DownloadedFile",
    "BrowserInfo",
    "PageInfo",
    "ProfileInfo",
    "Recording",
    "RecordingEvent",
    "EventMatch",
    "EventSearch",
    "RetryPolicy",
    "PeriscopeError",
    "BadRequestError",
    "FieldIssue",
    "AuthenticationError",
    "NotFoundError",
    "ConflictError",
    "PayloadTooLargeError",
    "RateLimitError",
    "BadGatewayError",
    "UnavailableError",
    "PeriscopeTimeoutError",
    "PeriscopeConnectionError",
]
