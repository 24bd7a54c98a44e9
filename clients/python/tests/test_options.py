"""What ``browser(...)`` sends to ``/start``, and the settings' defaults; no service needed."""

from __future__ import annotations

import urllib.parse

import pytest

from periscope._config import ClientConfig


def config(**overrides: object) -> ClientConfig:
    args = {"api_key": "psk_k", "base_url": "https://browser.example.com/", "timeout": None, "max_retries": None}
    args.update(overrides)
    return ClientConfig.resolve(**args)  # type: ignore[arg-type]


def test_start_options_pass_through_as_query_and_headers() -> None:
    url, headers = config().start_request(
        profile="shop",
        persist=True,
        timeout=300.0,
        queue=30,
        proxy="http://user:pw@proxy.example:8080",
        params={"region": "eu", "skip": None},
        headers={"X-Trace": "t1"},
    )
    parts = urllib.parse.urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("wss", "browser.example.com", "/start")
    assert dict(urllib.parse.parse_qsl(parts.query)) == {
        "profile": "shop",
        "persist": "1",
        "timeout": "300",
        "queue": "30",
        "region": "eu",
    }
    assert headers == {
        "X-Trace": "t1",
        "X-Browser-Proxy": "http://user:pw@proxy.example:8080",
        "Authorization": "Bearer psk_k",
    }


def test_no_options_no_query() -> None:
    url, headers = config(base_url="http://127.0.0.1:3100").start_request(
        profile=None, persist=None, timeout=None, queue=None, proxy=None, params=None, headers=None
    )
    assert url == "ws://127.0.0.1:3100/start" and headers == {"Authorization": "Bearer psk_k"}


def test_defaults_and_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERISCOPE_URL", raising=False)
    c = config(base_url=None)
    assert (c.base_url, c.timeout, c.max_retries) == ("http://127.0.0.1:3100", 60.0, 2)
    with pytest.raises(ValueError):
        config(base_url="ftp://example.com")
    with pytest.raises(ValueError):
        config(timeout=0)
    with pytest.raises(ValueError):
        config(max_retries=-1)


def test_page_actions_send_the_proxy_as_a_header_and_never_in_the_body() -> None:
    from periscope import _endpoints as api

    proxy = "socks5://user:pw@proxy.example:1080"
    for call in (
        api.fetch_page("https://a.example/", proxy=proxy),
        api.screenshot("https://a.example/", proxy=proxy),
        api.pdf("https://a.example/", proxy=proxy),
    ):
        assert call.headers["X-Browser-Proxy"] == proxy
        assert b"proxy" not in (call.body or b"") and b"pw" not in (call.body or b"")
    assert "X-Browser-Proxy" not in api.fetch_page("https://a.example/").headers
