"""The synchronous client's browsers against the real service and Chromium."""

from __future__ import annotations

import asyncio
import time
from typing import Dict, List

import pytest
from cdp import CDP
from conftest import DOWNLOAD_BODY, SLOW_BODY, SLOW_RELEASE, Service

import periscope
from periscope import ConflictError, DownloadedFile, NotFoundError, Periscope


def test_a_page_driven_over_raw_cdp(service: Service, api_key: str, pages: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    with client.browser() as b:
        assert b.id.startswith("br_") and len(b.id) == 35
        assert b.cdp_url.startswith(f"{service.ws_url}/devtools/browser/")
        assert b.headers == {"Authorization": f"Bearer {api_key}", "X-Browser-ID": b.id}
        assert b.ended is None

        async def drive(url: str, headers: Dict[str, str]) -> str:
            cdp = await CDP.connect(url, headers)
            try:
                session = await cdp.open_page(f"{pages}/page")
                return await cdp.evaluate("document.title", session)
            finally:
                await cdp.close()

        assert asyncio.run(drive(b.cdp_url, b.headers)) == "Periscope from Python"
        assert "Chrome" in b.version()["Browser"]
        # The same through the address alone, as tools that take no headers connect.
        assert b.connect_url is not None and b.connect_url.startswith(b.cdp_url + "?ticket=")
        assert asyncio.run(drive(b.connect_url, {})) == "Periscope from Python"
    assert b.ended == periscope.Ended("closed_by_client", 1000, "")


def test_the_socket_answers_pings_while_the_caller_sleeps(service: Service, api_key: str) -> None:
    # The service pings every 500 ms and drops a peer that missed one ping by the next.
    client = Periscope(api_key=api_key, base_url=service.url)
    with client.browser() as b:
        time.sleep(2.5)
        assert b.ended is None
        assert [x.status for x in client.browsers.list() if x.id == b.id] == ["live"]


def test_listed_and_stopped_through_the_api(service: Service, api_key: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    b = client.browser()
    try:
        live = client.browsers.list(status="live")
        assert b.id in [x.id for x in live]
        info = next(x for x in live if x.id == b.id)
        assert info.status == "live" and info.ended_at is None and info.started_at.tzinfo is not None

        client.browsers.stop(b.id)
        ended = b.wait_ended(timeout=10)
        assert (ended.reason, ended.code, ended.text) == ("stopped", 4410, "stopped through the API")
        assert b.ended == ended
        with pytest.raises(NotFoundError) as caught:
            b.version()
        assert caught.value.status == 404 and caught.value.code == "not_found"
    finally:
        assert b.stop().reason == "stopped"  # stop() after the service ended it: idempotent

    listed = {x.id: x for x in client.browsers.list(status="ended")}
    assert listed[b.id].end_reason == "stopped" and listed[b.id].ended_at is not None
    with pytest.raises(NotFoundError):
        client.browsers.stop(b.id)


def test_uploads_reach_the_page_and_downloads_come_back(service: Service, api_key: str, pages: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    with client.browser() as b:
        up = b.upload("notes.txt", b"hello from python")
        assert (up.name, up.path, up.size) == ("notes.txt", "/uploads/notes.txt", 17)
        b.upload("other.bin", bytearray(b"\x00\x01"))
        assert [f.name for f in b.uploads()] == ["notes.txt", "other.bin"]
        b.delete_upload("other.bin")
        assert [f.name for f in b.uploads()] == ["notes.txt"]
        with pytest.raises(NotFoundError):
            b.delete_upload("other.bin")

        async def drive() -> str:
            cdp = await CDP.connect(b.cdp_url, b.headers)
            try:
                session = await cdp.open_page(f"{pages}/form")
                await cdp.send("DOM.enable", session=session)
                root = await cdp.send("DOM.getDocument", session=session)
                node = await cdp.send(
                    "DOM.querySelector", {"nodeId": root["root"]["nodeId"], "selector": "#f"}, session=session
                )
                await cdp.send("DOM.setFileInputFiles", {"nodeId": node["nodeId"], "files": [up.path]}, session=session)
                content = await cdp.evaluate("document.getElementById('f').files[0].text()", session, await_promise=True)

                # The download behaviour holds while this DevTools connection does: wait here for the file.
                await cdp.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": "/ignored"})
                await cdp.navigate(f"{pages}/page", session)
                await cdp.evaluate("document.getElementById('dl').click()", session)

                async def saved() -> bool:
                    files = await asyncio.to_thread(b.downloads)
                    return any(f.name == "report.txt" and f.complete for f in files)

                await cdp.wait_until(saved)
                return content
            finally:
                await cdp.close()

        assert asyncio.run(drive()) == "hello from python"
        [report] = [f for f in b.downloads() if f.name == "report.txt"]
        assert report.size == len(DOWNLOAD_BODY)
        assert b.download("report.txt") == DOWNLOAD_BODY
        with pytest.raises(NotFoundError):
            b.download("absent.txt")


def test_start_options_the_service_does_not_know_yet_are_ignored(service: Service, api_key: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    with client.browser(
        profile="shop",
        persist=False,
        queue=30,
        proxy="http://proxy.example:8080",
        params={"region": "eu"},
        headers={"X-Trace": "t1"},
    ) as b:
        assert b.id.startswith("br_") and b.ended is None


def test_a_download_still_being_written_is_a_conflict(service: Service, api_key: str, pages: str) -> None:
    with Periscope(api_key=api_key, base_url=service.url).browser() as b:

        async def drive() -> str:
            cdp = await CDP.connect(b.cdp_url, b.headers)
            try:
                session = await cdp.open_page(f"{pages}/page")
                await cdp.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": "/ignored"})
                await cdp.evaluate("document.getElementById('slow').click()", session)
                pending: List[DownloadedFile] = []

                async def started() -> bool:
                    pending[:] = [f for f in await asyncio.to_thread(b.downloads) if not f.complete]
                    return bool(pending)

                await cdp.wait_until(started)
                assert pending[0].name.endswith(".crdownload")
                with pytest.raises(ConflictError) as caught:
                    b.download(pending[0].name)
                assert (caught.value.status, caught.value.code) == (409, "conflict")

                SLOW_RELEASE.set()

                async def finished() -> bool:
                    return any(f.name == "slow.bin" and f.complete for f in await asyncio.to_thread(b.downloads))

                await cdp.wait_until(finished)
                return "done"
            finally:
                SLOW_RELEASE.set()
                await cdp.close()

        assert asyncio.run(drive()) == "done"
        assert b.download("slow.bin") == SLOW_BODY


def test_a_saved_profile_kept_listed_and_deleted(service: Service, api_key: str, pages: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)

    async def local_storage(url: str, headers: Dict[str, str], script: str) -> str:
        cdp = await CDP.connect(url, headers)
        try:
            session = await cdp.open_page(f"{pages}/page")
            return await cdp.evaluate(script, session)
        finally:
            await cdp.close()

    with client.browser(profile="py-profile", persist=True) as writer:
        asyncio.run(local_storage(writer.cdp_url, writer.headers, "localStorage.setItem('kept', 'from python'), 'set'"))
        with pytest.raises(ConflictError):
            client.browser(profile="py-profile", persist=True)
    deadline = time.monotonic() + 20
    listed: List[periscope.ProfileInfo] = []
    while time.monotonic() < deadline:
        listed = [p for p in client.profiles.list() if p.name == "py-profile" and not p.in_use]
        if listed:
            break
        time.sleep(0.2)
    assert listed and listed[0].bytes > 0 and listed[0].updated_at.tzinfo is not None

    with client.browser(profile="py-profile") as reader:
        assert asyncio.run(local_storage(reader.cdp_url, reader.headers, "localStorage.getItem('kept')")) == "from python"

    client.profiles.delete("py-profile")
    assert "py-profile" not in [p.name for p in client.profiles.list()]
    with pytest.raises(NotFoundError):
        client.profiles.delete("py-profile")
