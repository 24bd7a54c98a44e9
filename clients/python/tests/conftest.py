"""The real service for the whole session: Node's ``server/service/main.ts`` with real Chromium.

One service per test session (the machine is shared): a folder of HTML pages indexed for search, a
page server on the loopback for the browsers to load, and API keys made with the operator CLI.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[3]  # the repository: clients/python/tests -> ../../..
CLIENT_DIR = Path(__file__).resolve().parents[1]

#: The service's settings for these tests. A 2-second search window keeps rate-limit retries short;
#: pings every 500 ms show the client answering them; 1 MB files provoke 413 cheaply.
SERVICE_ENV = {
    "HOST": "127.0.0.1",
    "SERVICE_PORT": "0",
    "LOG_LEVEL": "info",
    "BROWSER_POOL_SIZE": "1",
    "BROWSER_CAPACITY": "3",
    "BROWSER_EGRESS_ALLOW": "127.0.0.1/32",
    "START_PING_INTERVAL_MS": "500",
    "SEARCH_RATE_WINDOW_SECONDS": "2",
    "SEARCH_WORKERS": "1",
    "BROWSER_FILE_MAX_MB": "1",
    "RECORDING_FPS": "4",
}

DOWNLOAD_BODY = b"quarterly figures, 42 rows\n"
#: /slow sends its first kilobyte, then the rest once a test sets SLOW_RELEASE: a download in progress.
SLOW_BODY = bytes(range(256)) * 400
SLOW_RELEASE = threading.Event()

PAGES = {
    "index.html": (
        "<!doctype html><html lang=en><head><title>Gathering coroutines</title></head><body>"
        "<h1>Gathering coroutines</h1><p>asyncio gather runs awaitable objects concurrently and "
        "collects their results in order.</p></body></html>"
    ),
    "tasks.html": (
        "<!doctype html><html lang=en><head><title>Cancelling tasks</title></head><body>"
        "<h1>Cancelling tasks</h1><p>A task of asyncio can be cancelled; gather cancels the "
        "awaitables it runs when it is cancelled itself.</p></body></html>"
    ),
    "pinning.html": (
        "<!doctype html><html lang=en><head><title>Apt pinning</title></head><body>"
        "<h1>Apt pinning</h1><p>Pinning chooses which version of a package apt installs from "
        "several repositories.</p></body></html>"
    ),
}


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.exit("node (24 or newer) must be on PATH to start the service", returncode=2)
    return found


@dataclass
class Service:
    url: str
    env: Dict[str, str]
    process: subprocess.Popen  # type: ignore[type-arg]
    logs: List[dict] = field(default_factory=list)

    @property
    def ws_url(self) -> str:
        return "ws" + self.url[len("http") :]

    def create_key(
        self,
        name: str,
        *,
        rate_per_minute: Optional[int] = None,
        max_instances: Optional[int] = None,
        record: bool = False,
    ) -> str:
        args = [node(), str(ROOT / "server/cli/keys.ts"), "create", "--name", name]
        if rate_per_minute is not None:
            args += ["--rate-per-minute", str(rate_per_minute)]
        if max_instances is not None:
            args += ["--max-instances", str(max_instances)]
        if record:
            args.append("--record")
        done = subprocess.run(args, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()[-1]

    def stop(self) -> Optional[int]:
        """SIGTERM (the service ends its browsers with 1001) and wait for it to exit."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def _index(env: Dict[str, str], pages_dir: Path) -> None:
    for name, html in PAGES.items():
        (pages_dir / name).write_text(html, encoding="utf-8")
    done = subprocess.run(
        [node(), str(ROOT / "server/cli/index.ts"), str(pages_dir), "--base-url", "http://docs.example/", "--quiet"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def start_service(data_dir: Path, env_overrides: Optional[Dict[str, str]] = None) -> Service:
    """Start ``node server/service/main.ts`` on a free loopback port and wait until it listens."""
    env = {**os.environ, **SERVICE_ENV, "DATA_DIR": str(data_dir), **(env_overrides or {})}
    process = subprocess.Popen(
        [node(), str(ROOT / "server/service/main.ts")],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    logs: List[dict] = []
    stderr: List[str] = []
    listening = threading.Event()
    found: Dict[str, str] = {}

    def read_stdout() -> None:  # drains the pipe for the service's life, so it never blocks on it
        assert process.stdout is not None
        for line in process.stdout:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            logs.append(entry)
            if isinstance(entry.get("level"), int) and entry["level"] >= 50:
                sys.stderr.write(f"[service] {line}")
            if entry.get("msg") == "service listening" and not listening.is_set():
                found["url"] = entry["url"]
                listening.set()
        listening.set()

    def read_stderr() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            stderr.append(line)

    threading.Thread(target=read_stdout, daemon=True).start()
    threading.Thread(target=read_stderr, daemon=True).start()
    listening.wait(90)
    if "url" not in found:
        process.kill()
        process.wait()
        raise RuntimeError(f"the service did not start:\n{''.join(stderr)}")
    return Service(url=found["url"], env=env, process=process, logs=logs)


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    data_dir = tmp_path_factory.mktemp("data")
    _index({**os.environ, **SERVICE_ENV, "DATA_DIR": str(data_dir)}, tmp_path_factory.mktemp("pages"))
    try:
        started = start_service(data_dir)
    except RuntimeError as err:
        pytest.exit(str(err), returncode=3)
    yield started
    started.stop()


@pytest.fixture(scope="session")
def api_key(service: Service) -> str:
    """A key for the tests that need nothing special of it."""
    return service.create_key("python-tests")


class _Pages(http.server.BaseHTTPRequestHandler):
    """The pages the remote browsers load: a titled page, an upload form and an attachment."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path == "/report":
            self._send(200, DOWNLOAD_BODY, "text/plain", {"Content-Disposition": 'attachment; filename="report.txt"'})
        elif self.path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(SLOW_BODY)))
            self.send_header("Content-Disposition", 'attachment; filename="slow.bin"')
            self.end_headers()
            self.wfile.write(SLOW_BODY[:1024])
            self.wfile.flush()
            SLOW_RELEASE.wait(60)
            self.wfile.write(SLOW_BODY[1024:])
        elif self.path == "/form":
            self._send(200, b"<!doctype html><title>Form</title><input type=file id=f>", "text/html")
        elif self.path.startswith("/page"):
            body = (
                b"<!doctype html><title>Periscope from Python</title>"
                b"<a id=dl href=/report>report</a> <a id=slow href=/slow>slow</a>"
            )
            self._send(200, body, "text/html")
        else:
            self._send(404, b"not here", "text/plain")

    def _send(self, status: int, body: bytes, kind: str, headers: Optional[Dict[str, str]] = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def pages() -> Iterator[str]:
    """The base address of the page server (http://127.0.0.1:PORT)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    SLOW_RELEASE.set()
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture()
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)
