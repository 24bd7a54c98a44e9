"""The settings both clients resolve the same way: arguments first, then the environment."""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

from ._endpoints import start_query
from ._errors import PeriscopeError

DEFAULT_BASE_URL = "http://127.0.0.1:3100"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2


@dataclass(frozen=True)
class ClientConfig:
    api_key: str
    base_url: str
    timeout: float
    max_retries: int

    @classmethod
    def resolve(
        cls,
        api_key: Optional[str],
        base_url: Optional[str],
        timeout: Optional[float],
        max_retries: Optional[int],
    ) -> "ClientConfig":
        key = api_key if api_key is not None else os.environ.get("PERISCOPE_API_KEY")
        if not key:
            raise PeriscopeError(
                "no API key: pass api_key= or set PERISCOPE_API_KEY (keys are issued with `npm run keys -- create`)"
            )
        url = (base_url or os.environ.get("PERISCOPE_URL") or DEFAULT_BASE_URL).rstrip("/")
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"base_url must be an http(s) address, not {url!r}")
        timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        if timeout <= 0:
            raise ValueError("timeout must be more than 0 seconds")
        retries = DEFAULT_MAX_RETRIES if max_retries is None else int(max_retries)
        if retries < 0:
            raise ValueError("max_retries must be 0 or more")
        return cls(api_key=key, base_url=url, timeout=timeout, max_retries=retries)

    @property
    def authorization(self) -> str:
        return f"Bearer {self.api_key}"

    def start_request(
        self,
        *,
        profile: Optional[str],
        persist: Optional[bool],
        timeout: Optional[float],
        queue: Optional[float],
        proxy: Optional[str],
        params: Optional[Mapping[str, Any]],
        headers: Optional[Mapping[str, str]],
    ) -> Tuple[str, Dict[str, str]]:
        """The ``/start`` address (``ws``/``wss``) with its query, and the handshake's headers."""
        query = start_query(profile=profile, persist=persist, timeout=timeout, queue=queue, params=params)
        url = "ws" + self.base_url[len("http") :] + "/start"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        sent: Dict[str, str] = dict(headers or {})
        if proxy is not None:
            sent["X-Browser-Proxy"] = proxy
        sent["Authorization"] = self.authorization
        return url, sent
