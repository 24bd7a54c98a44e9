"""Every HTTP endpoint of docs/api.md as a :class:`~periscope._http.Call`: what it sends, what it reads.

Kept free of I/O so that the sync and the async clients share each definition.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._http import Call, Response
from ._types import BrowserInfo, DownloadedFile, EventSearch, FetchResponse, ProfileInfo, Recording, SearchResponse, UploadedFile

#: What ``upload`` accepts: the bytes, a path to a local file, or a binary file open for reading.
FileData = Union[bytes, bytearray, memoryview, os.PathLike, IO[bytes]]


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def _none(_: Response) -> None:
    return None


def _bytes(response: Response) -> bytes:
    return response.body


def _browser_headers(browser_id: str) -> Dict[str, str]:
    return {"X-Browser-ID": browser_id}


# --- search -----------------------------------------------------------------------------------


def search(
    query: str,
    *,
    language: Optional[str] = None,
    exact: Optional[bool] = None,
    count: Optional[int] = None,
    offset: Optional[int] = None,
    sites: Optional[Sequence[str]] = None,
    exclude_sites: Optional[Sequence[str]] = None,
) -> Call[SearchResponse]:
    body: Dict[str, Any] = {"query": query}
    optional: Dict[str, Any] = {
        "language": language,
        "exact": exact,
        "count": count,
        "offset": offset,
        "sites": list(sites) if sites is not None else None,
        "excludeSites": list(exclude_sites) if exclude_sites is not None else None,
    }
    body.update({k: v for k, v in optional.items() if v is not None})
    return Call(
        "POST",
        "/v0/search",
        lambda r: SearchResponse.from_json(r.json()),
        headers={"Content-Type": "application/json"},
        body=json.dumps(body, ensure_ascii=False).encode("utf-8"),
    )


# --- page actions: one call, one page (docs/api.md, "Page actions") ----------------------------

#: The service's own default ``timeoutMs`` of a page action, and the room its answer needs on top.
_ACTION_DEFAULT_S = 30.0
_ANSWER_ROOM_S = 10.0


def _page_action(path: str, parse: Any, body: Dict[str, Any], proxy: Optional[str] = None) -> Call[Any]:
    sent = {k: v for k, v in body.items() if v is not None}
    works_for = (sent.get("timeoutMs", _ACTION_DEFAULT_S * 1000) / 1000) + _ANSWER_ROOM_S
    headers = {"Content-Type": "application/json"}
    if proxy is not None:
        # The call's browser's own upstream proxy travels as a header, never in the body.
        headers["X-Browser-Proxy"] = proxy
    return Call(
        "POST",
        path,
        parse,
        headers=headers,
        body=json.dumps(sent, ensure_ascii=False).encode("utf-8"),
        works_for=works_for,
    )


def fetch_page(
    url: str,
    *,
    format: Optional[str] = None,
    wait_until: Optional[str] = None,
    timeout_ms: Optional[int] = None,
    proxy: Optional[str] = None,
) -> Call[FetchResponse]:
    body = {"url": url, "format": format, "waitUntil": wait_until, "timeoutMs": timeout_ms}
    return _page_action("/v0/fetch", lambda r: FetchResponse.from_json(r.json()), body, proxy)


def screenshot(
    url: str,
    *,
    format: Optional[str] = None,
    quality: Optional[int] = None,
    full_page: Optional[bool] = None,
    viewport: Optional[Tuple[int, int]] = None,
    wait_until: Optional[str] = None,
    timeout_ms: Optional[int] = None,
    proxy: Optional[str] = None,
) -> Call[bytes]:
    body = {
        "url": url,
        "format": format,
        "quality": quality,
        "fullPage": full_page,
        "viewport": {"width": viewport[0], "height": viewport[1]} if viewport else None,
        "waitUntil": wait_until,
        "timeoutMs": timeout_ms,
    }
    return _page_action("/v0/screenshot", _bytes, body, proxy)


def pdf(
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
) -> Call[bytes]:
    body = {
        "url": url,
        "format": format,
        "landscape": landscape,
        "printBackground": print_background,
        "scale": scale,
        "margin": dict(margin) if margin is not None else None,
        "pageRanges": page_ranges,
        "waitUntil": wait_until,
        "timeoutMs": timeout_ms,
    }
    return _page_action("/v0/pdf", _bytes, body, proxy)


# --- one browser: /json/version and its files ---------------------------------------------------


def json_version(browser_id: str) -> Call[Dict[str, Any]]:
    return Call("GET", "/json/version", lambda r: dict(r.json()), headers=_browser_headers(browser_id))


def upload(browser_id: str, name: str, data: FileData) -> Call[UploadedFile]:
    return Call(
        "PUT",
        f"/v0/browser/uploads/{_quote(name)}",
        lambda r: UploadedFile.from_json(r.json()),
        headers={**_browser_headers(browser_id), "Content-Type": "application/octet-stream"},
        body=_read(data),
    )


def uploads(browser_id: str) -> Call[List[UploadedFile]]:
    return Call(
        "GET",
        "/v0/browser/uploads",
        lambda r: [UploadedFile.from_json(f) for f in r.json()["files"]],
        headers=_browser_headers(browser_id),
    )


def delete_upload(browser_id: str, name: str) -> Call[None]:
    return Call("DELETE", f"/v0/browser/uploads/{_quote(name)}", _none, headers=_browser_headers(browser_id))


def downloads(browser_id: str) -> Call[List[DownloadedFile]]:
    return Call(
        "GET",
        "/v0/browser/downloads",
        lambda r: [DownloadedFile.from_json(f) for f in r.json()["files"]],
        headers=_browser_headers(browser_id),
    )


def download(browser_id: str, name: str) -> Call[bytes]:
    return Call(
        "GET",
        f"/v0/browser/downloads/{_quote(name)}",
        _bytes,
        headers={**_browser_headers(browser_id), "Accept": "application/octet-stream"},
    )


# --- the key's browsers and recordings ------------------------------------------------------------


def list_browsers(status: Optional[str] = None) -> Call[List[BrowserInfo]]:
    return Call(
        "GET",
        "/v0/browsers",
        lambda r: [BrowserInfo.from_json(b) for b in r.json()["browsers"]],
        query={"status": status} if status is not None else {},
    )


def stop_browser(browser_id: str) -> Call[None]:
    return Call("DELETE", f"/v0/browsers/{_quote(browser_id)}", _none)


def list_profiles() -> Call[List[ProfileInfo]]:
    return Call("GET", "/v0/profiles", lambda r: [ProfileInfo.from_json(p) for p in r.json()["profiles"]])


def delete_profile(name: str) -> Call[None]:
    return Call("DELETE", f"/v0/profiles/{_quote(name)}", _none)


def recording(browser_id: str, after: Optional[int] = None) -> Call[Recording]:
    return Call(
        "GET",
        f"/v0/browsers/{_quote(browser_id)}/recording",
        lambda r: Recording.from_json(r.json()),
        query={"after": str(after)} if after is not None else {},
    )


def recording_frame(browser_id: str, offset: int, length: int) -> Call[bytes]:
    if offset < 0 or length < 1:
        raise ValueError("a frame has an offset of 0 or more and a length of 1 or more")
    return Call(
        "GET",
        f"/v0/browsers/{_quote(browser_id)}/recording/screen",
        _bytes,
        headers={"Range": f"bytes={offset}-{offset + length - 1}", "Accept": "image/jpeg"},
    )


def recording_events(
    *,
    q: Optional[str] = None,
    type: Optional[Union[str, Iterable[str]]] = None,
    status: Optional[Union[str, int]] = None,
    host: Optional[str] = None,
    since: Optional[Union[str, datetime]] = None,
    until: Optional[Union[str, datetime]] = None,
    limit: Optional[int] = None,
) -> Call[EventSearch]:
    query: Dict[str, str] = {}
    if q is not None:
        query["q"] = q
    if type is not None:
        query["type"] = type if isinstance(type, str) else ",".join(type)
    if status is not None:
        query["status"] = str(status)
    if host is not None:
        query["host"] = host
    if since is not None:
        query["since"] = _iso(since)
    if until is not None:
        query["until"] = _iso(until)
    if limit is not None:
        query["limit"] = str(limit)
    return Call("GET", "/v0/recordings/events", lambda r: EventSearch.from_json(r.json()), query=query)


def health() -> Call[Dict[str, Any]]:
    return Call("GET", "/healthz", lambda r: dict(r.json()))


# --- helpers ------------------------------------------------------------------------------------


def _iso(when: Union[str, datetime]) -> str:
    if isinstance(when, str):
        return when
    if when.tzinfo is None:
        raise ValueError("since/until need a time zone (the service reads ISO 8601 with a zone)")
    return when.isoformat()


def _read(data: FileData) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, os.PathLike):
        return Path(data).read_bytes()
    if hasattr(data, "read"):
        content = data.read()
        if not isinstance(content, (bytes, bytearray)):
            raise TypeError("upload() needs a file opened in binary mode")
        return bytes(content)
    raise TypeError(f"upload() takes bytes, a path or a binary file, not {type(data).__name__}")


def start_query(
    *,
    profile: Optional[str],
    persist: Optional[bool],
    timeout: Optional[float],
    queue: Optional[float],
    params: Optional[Mapping[str, Any]],
) -> Dict[str, str]:
    """The ``/start`` query: free ``params``, then the options the service takes by their own names
    (``persist`` as ``1`` or ``0``, seconds as whole numbers), which win over a free one of the same name."""
    named: Dict[str, Any] = {"profile": profile, "persist": persist, "timeout": timeout, "queue": queue}
    merged = {k: v for k, v in (params or {}).items() if v is not None}
    merged.update({k: v for k, v in named.items() if v is not None})
    return {k: _query_value(v) for k, v in merged.items()}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
