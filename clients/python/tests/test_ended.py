"""How a browser ends when neither the client nor the API stops it: the service going, the network going."""

from __future__ import annotations

import socket
import struct
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Iterator, List

import pytest
from conftest import Service, start_service

from periscope import Periscope


def test_the_service_shutting_down(tmp_path: Path) -> None:
    own = start_service(tmp_path, {"BROWSER_POOL_SIZE": "0"})
    try:
        client = Periscope(api_key=own.create_key("shutdown"), base_url=own.url)
        b = client.browser()
        assert b.ended is None
        assert own.stop() == 0
        ended = b.wait_ended(timeout=20)
        assert (ended.reason, ended.code, ended.text) == ("shutdown", 1001, "service shutting down")
        assert b.stop() == ended
    finally:
        own.stop()


class Relay:
    """A TCP relay to the service whose connections can be cut at once, as a network would."""

    def __init__(self, target: str) -> None:
        parts = urllib.parse.urlsplit(target)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._server = socket.create_server(("127.0.0.1", 0))
        self._sockets: List[socket.socket] = []
        self._lock = threading.Lock()
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            with self._lock:
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass

    def cut(self) -> None:
        """Drop every connection without a close frame, both ways (a reset, as when a link goes)."""
        with self._lock:
            for s in self._sockets:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                try:
                    s.shutdown(socket.SHUT_RDWR)  # wakes the relaying threads blocked on it
                except OSError:
                    pass
                s.close()
            self._sockets.clear()

    def close(self) -> None:
        self._server.close()
        self.cut()


@pytest.fixture()
def relay(service: Service) -> Iterator[Relay]:
    r = Relay(service.url)
    yield r
    r.close()


def test_the_connection_lost(relay: Relay, api_key: str, service: Service) -> None:
    client = Periscope(api_key=api_key, base_url=relay.url)
    b = client.browser()
    relay.cut()
    ended = b.wait_ended(timeout=30)
    assert (ended.reason, ended.code) == ("connection_lost", 1006)
    # The service saw its side go too, and ended the browser.
    direct = Periscope(api_key=api_key, base_url=service.url)
    deadline = time.monotonic() + 15
    while b.id in [x.id for x in direct.browsers.list(status="live")]:
        assert time.monotonic() < deadline
        time.sleep(0.2)
