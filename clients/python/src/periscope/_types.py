"""What the service answers, as typed values (docs/api.md), and how each is read from its JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, List, Literal, Mapping, Optional

__all__ = [
    "SearchResult",
    "SearchResponse",
    "FetchResponse",
    "UploadedFile",
    "DownloadedFile",
    "PageInfo",
    "BrowserInfo",
    "Recording",
    "RecordingEvent",
    "EventMatch",
    "EventSearch",
    "EndReason",
    "Ended",
]

#: How a browser's ``/start`` socket ended (docs/api.md, section 1, close codes).
EndReason = Literal[
    "closed_by_client",  # 1000: stop(), leaving the ``with`` block
    "shutdown",  # 1001: the service is shutting down
    "internal",  # 1011: the service failed while holding the instance
    "key_revoked",  # 4401
    "lifetime",  # 4408: BROWSER_MAX_LIFETIME_SECONDS reached
    "stopped",  # 4410: DELETE /v0/browsers/{id}
    "disk_limit",  # 4413: BROWSER_DISK_LIMIT_MB passed
    "crashed",  # 4500: Chromium exited on its own
    "node_lost",  # 4502: several nodes, the one running it died
    "connection_lost",  # the connection dropped without a close frame (network, service killed)
    "unknown",  # a close code this version of the client does not know
]

CLOSE_CODES: Mapping[int, EndReason] = {
    1000: "closed_by_client",
    1001: "shutdown",
    1011: "internal",
    4401: "key_revoked",
    4408: "lifetime",
    4410: "stopped",
    4413: "disk_limit",
    4500: "crashed",
    4502: "node_lost",
}


@dataclass(frozen=True)
class Ended:
    """How and why a browser ended: the typed ``reason``, the close ``code`` and the service's text.

    ``code`` is 1006 when the connection dropped without a close frame (``connection_lost``).
    """

    reason: EndReason
    code: int
    text: str = ""


@dataclass(frozen=True)
class SearchResult:
    url: str
    title: str
    snippet: str
    #: What the page is written in (two letters), when known.
    language: Optional[str] = None
    #: The page's place in its manual or site, outermost first, when its markup says more than the title.
    section: Optional[List[str]] = None
    #: The icon the site declares (an http(s) or small data: address), when it declares one.
    favicon: Optional[str] = None

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "SearchResult":
        section = raw.get("section")
        return cls(
            url=raw["url"],
            title=raw.get("title", ""),
            snippet=raw.get("snippet", ""),
            language=raw.get("language"),
            section=list(section) if isinstance(section, list) else None,
            favicon=raw.get("favicon"),
        )


@dataclass(frozen=True)
class SearchTry:
    """A search that finds something, offered when one found nothing: pass its fields to ``search``."""

    query: str
    language: str
    #: ``corrected``, ``fewer-words``, ``one-word``, ``english`` or ``every-site``.
    why: str
    #: Only these hosts (and those under them); ``None`` on every site.
    sites: Optional[List[str]] = None
    exclude_sites: Optional[List[str]] = None

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "SearchTry":
        sites = raw.get("sites")
        exclude = raw.get("excludeSites")
        return cls(
            query=raw["query"],
            language=raw.get("language", "en"),
            why=raw.get("why", ""),
            sites=list(sites) if isinstance(sites, list) else None,
            exclude_sites=list(exclude) if isinstance(exclude, list) else None,
        )


@dataclass(frozen=True)
class SearchResponse:
    results: List[SearchResult]
    #: The ``offset`` to ask for the next page; ``None`` on the last page.
    next_offset: Optional[int] = None
    #: The words actually searched, when words of the query were corrected.
    corrected: Optional[str] = None
    #: On the first page of a search that found nothing: the searches the service checked find
    #: something (empty when none does). Asking for them cost no search.
    tries: List[SearchTry] = field(default_factory=list)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "SearchResponse":
        nxt = raw.get("next")
        corrected = raw.get("corrected")
        tries = raw.get("tries")
        return cls(
            results=[SearchResult.from_json(r) for r in raw.get("results", [])],
            next_offset=nxt.get("offset") if isinstance(nxt, dict) else None,
            corrected=corrected.get("query") if isinstance(corrected, dict) else None,
            tries=[SearchTry.from_json(t) for t in tries if isinstance(t, dict)] if isinstance(tries, list) else [],
        )


@dataclass(frozen=True)
class FetchResponse:
    """``POST /v0/fetch``: a page as a real browser rendered it."""

    url: str
    #: Where the page ended up after redirects.
    final_url: str
    #: The HTTP status of the page's own document (a 404 page is a page).
    status: int
    title: str
    #: The page's main content, in the format asked for (Markdown by default).
    content: str
    #: Every http(s) link of the rendered page, absolute, without repeats.
    links: List[str]

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "FetchResponse":
        return cls(
            url=raw["url"],
            final_url=raw["finalUrl"],
            status=int(raw["status"]),
            title=raw.get("title", ""),
            content=raw.get("content", ""),
            links=list(raw.get("links", [])),
        )


@dataclass(frozen=True)
class UploadedFile:
    name: str
    #: What to hand the browser (``DOM.setFileInputFiles``), e.g. ``/uploads/report.pdf``.
    path: str
    size: int

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "UploadedFile":
        return cls(name=raw["name"], path=raw["path"], size=int(raw["size"]))


@dataclass(frozen=True)
class DownloadedFile:
    #: A download still being written is listed as ``<name>.crdownload`` with ``complete=False``;
    #: so is its final name while Chromium moves it there (an empty file for a moment).
    name: str
    size: int
    modified_at: datetime
    complete: bool

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "DownloadedFile":
        return cls(
            name=raw["name"],
            size=int(raw["size"]),
            modified_at=parse_time(raw["modifiedAt"]),
            complete=bool(raw["complete"]),
        )


@dataclass(frozen=True)
class ProfileInfo:
    """One of the key's saved browser profiles as ``GET /v0/profiles`` lists it (docs/api.md, section 7)."""

    name: str
    #: Its stored (sealed) size.
    bytes: int
    #: When its last save ended.
    updated_at: datetime
    #: Whether a browser started with ``persist=True`` holds it now.
    in_use: bool

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "ProfileInfo":
        return cls(name=raw["name"], bytes=int(raw["bytes"]), updated_at=parse_time(raw["updatedAt"]), in_use=bool(raw["inUse"]))


@dataclass(frozen=True)
class PageInfo:
    url: str
    title: str


@dataclass(frozen=True)
class BrowserInfo:
    """One of the key's browsers as ``GET /v0/browsers`` lists it."""

    id: str
    #: ``live``, ``ending`` or ``ended``.
    status: str
    started_at: datetime
    ended_at: Optional[datetime]
    #: ``client-closed``, ``stopped``, ``lifetime``, ... as the service names it (docs/api.md, section 5).
    end_reason: Optional[str]
    #: The tab that changed last; ``None`` when it has no tab.
    page: Optional[PageInfo]
    tabs: int
    recorded: bool = False

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "BrowserInfo":
        page = raw.get("page")
        ended_at = raw.get("endedAt")
        return cls(
            id=raw["id"],
            status=raw["status"],
            started_at=parse_time(raw["startedAt"]),
            ended_at=parse_time(ended_at) if ended_at else None,
            end_reason=raw.get("endReason"),
            page=PageInfo(url=page.get("url", ""), title=page.get("title", "")) if isinstance(page, dict) else None,
            tabs=int(raw.get("tabs") or 0),
            recorded=bool(raw.get("recorded", False)),
        )


#: A recording's event as the service stores it: ``seq``, ``t``, ``type`` and the type's own fields
#: (docs/api.md, section 6); kept as the JSON object, since each type has fields of its own.
RecordingEvent = Dict[str, Any]


@dataclass(frozen=True)
class Recording:
    id: str
    started_at: datetime
    ended_at: Optional[datetime]
    live: bool
    #: Bytes of JPEG frames recorded so far (``recording_frame`` reads them).
    screen_bytes: int
    events: List[RecordingEvent] = field(default_factory=list)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "Recording":
        ended_at = raw.get("endedAt")
        return cls(
            id=raw["id"],
            started_at=parse_time(raw["startedAt"]),
            ended_at=parse_time(ended_at) if ended_at else None,
            live=bool(raw["live"]),
            screen_bytes=int(raw.get("screenBytes") or 0),
            events=list(raw.get("events", [])),
        )


@dataclass(frozen=True)
class EventMatch:
    browser: str
    browser_started_at: datetime
    at: datetime
    event: RecordingEvent

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "EventMatch":
        return cls(
            browser=raw["browser"],
            browser_started_at=parse_time(raw["browserStartedAt"]),
            at=parse_time(raw["at"]),
            event=dict(raw["event"]),
        )


@dataclass(frozen=True)
class EventSearch:
    matches: List[EventMatch]
    #: How many recordings the window touched.
    sessions: int
    #: More matches than ``limit``, or more sessions, than answered.
    truncated: bool

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "EventSearch":
        return cls(
            matches=[EventMatch.from_json(m) for m in raw.get("matches", [])],
            sessions=int(raw.get("sessions") or 0),
            truncated=bool(raw.get("truncated", False)),
        )


def parse_time(text: str) -> datetime:
    """An ISO 8601 time as the service writes it (``2026-11-23T09:00:00.000Z``), zone-aware."""
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text)
