"""Whole processes: one that used a browser exits at once, and the package installs from its folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from conftest import CLIENT_DIR, Service

import periscope

PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


def _run(script: str, env: dict, timeout: float = 60) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    return subprocess.run(
        [PYTHON, "-c", textwrap.dedent(script)], env=env, capture_output=True, text=True, timeout=timeout
    )


def test_a_process_exits_after_stop(service: Service, api_key: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR / "src"), "PERISCOPE_API_KEY": api_key, "PERISCOPE_URL": service.url}
    script = """
        import threading, time
        import periscope

        client = periscope.Periscope()
        b = client.browser()
        print(b.id, flush=True)
        ended = b.stop()
        assert ended.reason == "closed_by_client", ended
        assert [t.name for t in threading.enumerate()] == ["MainThread"], threading.enumerate()

        with client.browser() as b2:
            pass
        assert threading.active_count() == 1
        print("done", flush=True)
    """
    started = time.monotonic()
    done = _run(script, env)
    assert done.returncode == 0, done.stderr
    browser_id, last = done.stdout.split()
    assert last == "done" and time.monotonic() - started < 30
    ended = {x.id: x for x in periscope.Periscope(api_key=api_key, base_url=service.url).browsers.list()}
    assert ended[browser_id].status in ("ending", "ended")


def test_a_process_that_forgets_to_stop_still_exits(service: Service, api_key: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR / "src"), "PERISCOPE_API_KEY": api_key, "PERISCOPE_URL": service.url}
    done = _run("import periscope; print(periscope.Periscope().browser().id)", env, timeout=30)
    assert done.returncode == 0, done.stderr
    # Its socket went with it: the service ends the browser.
    client = periscope.Periscope(api_key=api_key, base_url=service.url)
    deadline = time.monotonic() + 15
    while any(x.id == done.stdout.strip() for x in client.browsers.list(status="live")):
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_installs_with_pip_from_its_folder(tmp_path: Path) -> None:
    has = subprocess.run([PYTHON, "-c", "import ensurepip, setuptools"], capture_output=True, timeout=60)
    assert has.returncode == 0, "this test needs Debian's python3-venv and python3-setuptools (apt-get install)"
    # From a copy of the folder as git holds it: the build's own files stay out of the source tree.
    source = tmp_path / "python"
    shutil.copytree(CLIENT_DIR, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".*"))
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    # Debian's setuptools builds it; nothing is fetched.
    install = subprocess.run(
        [str(venv / "bin/pip"), "install", "--no-build-isolation", "--no-deps", "--no-index", str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert install.returncode == 0, install.stdout + install.stderr
    script = """
        import pathlib, periscope
        from periscope import Periscope, AsyncPeriscope, RateLimitError
        print(periscope.__version__)
        print(pathlib.Path(periscope.__file__).parent)
        print((pathlib.Path(periscope.__file__).parent / "py.typed").exists())
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(venv / "bin/python"), "-c", textwrap.dedent(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    version, location, typed = done.stdout.split()
    assert version == periscope.__version__
    assert Path(location).is_relative_to(venv) and typed == "True"
