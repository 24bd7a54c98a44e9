"""Every typed error, provoked for real against the service (or a socket that never answers)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Iterator, List

import pytest
from conftest import Service, start_service

from periscope import (
    AuthenticationError,
    BadGatewayError,
    Browser,
    PayloadTooLargeError,
    Periscope,
    PeriscopeConnectionError,
    PeriscopeError,
    PeriscopeTimeoutError,
    RateLimitError,
    UnavailableError,
)

BAD_KEY = "psk_0000000000000000_" + "A" * 43


def test_a_bad_key_is_refused_before_the_handshake(service: Service) -> None:
    with pytest.raises(AuthenticationError) as caught:
        Periscope(api_key=BAD_KEY, base_url=service.url).browser()
    err = caught.value
    assert (err.status, err.code) == (401, "unauthorized")
    # The refusal's JSON body is read from the handshake's answer, not guessed from the status.
    assert isinstance(err.body, dict) and err.body["code"] == "unauthorized" and err.message == err.body["error"]


def test_a_key_at_its_browser_limit(service: Service) -> None:
    client = Periscope(api_key=service.create_key("one-browser", max_instances=1), base_url=service.url)
    with client.browser() as first:
        with pytest.raises(RateLimitError) as caught:
            client.browser()
        err = caught.value
        assert (err.status, err.code) == (429, "rate_limited")
        assert err.retry_after is not None and err.retry_after > 0
        assert "limit of 1 concurrent browsers" in err.message
        assert first.ended is None
    with client.browser() as again:  # the limit counts live browsers only
        assert again.id != first.id


def test_the_machine_at_capacity(service: Service, api_key: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    held: List[Browser] = []
    try:
        with pytest.raises(UnavailableError) as caught:
            for _ in range(4):  # BROWSER_CAPACITY is 3
                held.append(client.browser())
        assert 1 <= len(held) <= 3
        assert (caught.value.status, caught.value.code) == (503, "unavailable")
        assert caught.value.retry_after == 5
    finally:
        for b in held:
            b.stop()


def test_searches_over_the_rate_without_retries(service: Service) -> None:
    client = Periscope(api_key=service.create_key("two-a-window", rate_per_minute=2), base_url=service.url, max_retries=0)
    client.search("asyncio")
    client.search("asyncio")
    with pytest.raises(RateLimitError) as caught:
        client.search("asyncio")
    err = caught.value
    assert (err.status, err.code) == (429, "rate_limited")
    assert err.retry_after is not None and 0 < err.retry_after <= 3  # the window is 2 s


def test_searches_over_the_rate_retried_after_retry_after(service: Service) -> None:
    client = Periscope(api_key=service.create_key("two-a-window-retried", rate_per_minute=2), base_url=service.url)
    assert client.max_retries == 2
    client.search("asyncio")
    client.search("asyncio")
    refused = Periscope(api_key=client._config.api_key, base_url=service.url, max_retries=0)
    with pytest.raises(RateLimitError) as caught:
        refused.search("asyncio")
    assert caught.value.retry_after is not None
    started = time.monotonic()
    assert client.search("asyncio").results  # refused once more, then answered after Retry-After
    assert time.monotonic() - started >= caught.value.retry_after - 1.0


def test_an_index_that_cannot_answer(tmp_path: Path) -> None:
    corrupt = tmp_path / "index.db"
    corrupt.write_bytes(b"not a database, " * 512)
    own = start_service(tmp_path, {"SEARCH_INDEX_PATH": str(corrupt), "BROWSER_POOL_SIZE": "0"})
    try:
        key = own.create_key("bad-index")
        with pytest.raises(BadGatewayError) as caught:
            Periscope(api_key=key, base_url=own.url, max_retries=0).search("asyncio")
        assert (caught.value.status, caught.value.code) == (502, "bad_gateway")

        # Retried twice, backing off 0.5 s then 1 s (a 502 has no Retry-After), then raised.
        started = time.monotonic()
        with pytest.raises(BadGatewayError):
            Periscope(api_key=key, base_url=own.url).search("asyncio")
        assert 1.5 <= time.monotonic() - started < 10
    finally:
        own.stop()


def test_a_file_over_the_limit(service: Service, api_key: str) -> None:
    with Periscope(api_key=api_key, base_url=service.url).browser() as b:
        # BROWSER_FILE_MAX_MB is 1. The service answers from Content-Length and closes while the
        # client is still sending (8 MB outlast any socket buffer): the answer is read all the same.
        for size in (1024 * 1024 + 1, 8 * 1024 * 1024):
            with pytest.raises(PayloadTooLargeError) as caught:
                b.upload("big.bin", b"\0" * size)
            assert (caught.value.status, caught.value.code) == (413, "payload_too_large")
        assert b.uploads() == []


def test_nothing_listening() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = Periscope(api_key=BAD_KEY, base_url=f"http://127.0.0.1:{port}", timeout=5)
    with pytest.raises(PeriscopeConnectionError):
        client.search("asyncio")
    with pytest.raises(PeriscopeConnectionError):
        client.browser()


@pytest.fixture()
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: List[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    server.close()


def test_no_answer_within_the_timeout(silent_port: int) -> None:
    client = Periscope(api_key=BAD_KEY, base_url=f"http://127.0.0.1:{silent_port}", timeout=0.5)
    started = time.monotonic()
    with pytest.raises(PeriscopeTimeoutError):
        client.search("asyncio")
    with pytest.raises(PeriscopeTimeoutError):
        client.browser()
    assert time.monotonic() - started < 5


def test_no_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERISCOPE_API_KEY", raising=False)
    with pytest.raises(PeriscopeError, match="PERISCOPE_API_KEY"):
        Periscope()


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, service: Service, api_key: str) -> None:
    monkeypatch.setenv("PERISCOPE_API_KEY", api_key)
    monkeypatch.setenv("PERISCOPE_URL", service.url + "/")
    client = Periscope()
    assert client.base_url == service.url
    assert client.search("asyncio").results
