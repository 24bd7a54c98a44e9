"""The one-call page actions (``fetch``, ``screenshot``, ``pdf``) against the real service."""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from typing import List

import pytest
from conftest import Service

from periscope import AsyncPeriscope, BadGatewayError, BadRequestError, FetchResponse, Periscope


def test_fetch_reads_the_page_as_the_browser_rendered_it(service: Service, api_key: str, pages: str) -> None:
    page = Periscope(api_key=api_key, base_url=service.url).fetch(f"{pages}/page", format="text")
    assert isinstance(page, FetchResponse)
    assert page.title == "Periscope from Python"
    assert page.status == 200 and page.final_url == f"{pages}/page"
    assert f"{pages}/report" in page.links and f"{pages}/slow" in page.links
    missing = Periscope(api_key=api_key, base_url=service.url).fetch(f"{pages}/nowhere")
    assert missing.status == 404, "a 404 page is a page"


def test_screenshot_and_pdf_bytes(service: Service, api_key: str, pages: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    png = client.screenshot(f"{pages}/page", viewport=(640, 480))
    assert png[1:4] == b"PNG"
    assert struct.unpack(">II", png[16:24]) == (640, 480)
    jpeg = client.screenshot(f"{pages}/page", format="jpeg", quality=40)
    assert jpeg[:2] == b"\xff\xd8"
    document = client.pdf(f"{pages}/page", format="a4", landscape=True, margin={"top": 1})
    assert document[:5] == b"%PDF-"


def test_errors_name_the_field_and_the_reason(service: Service, api_key: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url, max_retries=0)
    with pytest.raises(BadRequestError) as bad:
        client.fetch("ftp://example.com/")
    assert bad.value.field == "url"
    with pytest.raises(BadRequestError) as quality:
        client.screenshot("https://example.com/", quality=50)
    assert quality.value.field == "quality"
    with pytest.raises(BadGatewayError) as refused:
        client.fetch("http://10.255.255.1/")
    assert "refused by the egress policy" in str(refused.value)


def test_the_async_client_does_the_same(service: Service, api_key: str, pages: str) -> None:
    async def run() -> str:
        client = AsyncPeriscope(api_key=api_key, base_url=service.url)
        page, png = await asyncio.gather(client.fetch(f"{pages}/page"), client.screenshot(f"{pages}/page"))
        assert png[1:4] == b"PNG"
        return page.title

    assert asyncio.run(run()) == "Periscope from Python"


class _SocksProxy:
    """A SOCKS5 proxy on loopback with a username and password (RFC 1928, 1929), counting its tunnels."""

    def __init__(self, username: str, password: str) -> None:
        self.tunnels: List[str] = []
        self._login = (username.encode(), password.encode())
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        def read(n: int) -> bytes:
            data = b""
            while len(data) < n:
                chunk = client.recv(n - len(data))
                if not chunk:
                    raise ConnectionError("closed")
                data += chunk
            return data

        try:
            _, count = read(2)
            if 2 not in read(count):
                client.sendall(b"\x05\xff")
                return
            client.sendall(b"\x05\x02")
            _, ulen = read(2)
            user = read(ulen)
            (plen,) = read(1)
            if (user, read(plen)) != self._login:
                client.sendall(b"\x01\x01")
                return
            client.sendall(b"\x01\x00")
            _, _, _, kind = read(4)
            host = socket.inet_ntoa(read(4)) if kind == 1 else read(read(1)[0]).decode()
            port = struct.unpack(">H", read(2))[0]
            upstream = socket.create_connection((host, port))
            self.tunnels.append(f"{host}:{port}")
            client.sendall(b"\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00")
            threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()
            _pump(client, upstream)
        except OSError:
            pass
        finally:
            client.close()

    def close(self) -> None:
        self._server.close()


def _pump(a: socket.socket, b: socket.socket) -> None:
    """Copy one way until either side closes, then close both ways."""
    try:
        while chunk := a.recv(65536):
            b.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def test_proxy_is_sent_as_x_browser_proxy(service: Service, api_key: str, pages: str) -> None:
    proxy = _SocksProxy("tenant", "s3cret")
    try:
        client = Periscope(api_key=api_key, base_url=service.url, max_retries=0)
        page = client.fetch(f"{pages}/page", format="text", proxy=f"socks5://tenant:s3cret@127.0.0.1:{proxy.port}")
        assert page.status == 200
        assert pages.split("//")[1].rstrip("/") in proxy.tunnels, "the page went through the proxy"
        with pytest.raises(BadGatewayError) as refused:
            client.fetch(f"{pages}/page", proxy=f"socks5://tenant:wrong@127.0.0.1:{proxy.port}")
        assert "refused the login" in refused.value.message
        with pytest.raises(BadRequestError) as bad:
            client.fetch(f"{pages}/page", proxy="socks5://no-port.example")
        assert bad.value.field == "X-Browser-Proxy"
    finally:
        proxy.close()
