"""Recordings of a recorded key's browser: its events, a frame of its screen, the search over events."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta, timezone

import pytest
from cdp import CDP
from conftest import Service

from periscope import BadRequestError, NotFoundError, Periscope


def test_a_recorded_browser(service: Service, pages: str) -> None:
    client = Periscope(api_key=service.create_key("recorded", record=True), base_url=service.url)
    with client.browser() as b:

        async def visit() -> None:
            cdp = await CDP.connect(b.cdp_url, b.headers)
            try:
                session = await cdp.open_page(f"{pages}/page")
                # The recorder may attach to a new tab after its first navigation (seen on a
                # loaded machine); a later one is recorded.
                await asyncio.sleep(0.5)
                await cdp.navigate(f"{pages}/page?again", session)
            finally:
                await cdp.close()

        asyncio.run(visit())
        deadline = time.monotonic() + 20
        while True:
            rec = client.browsers.recording(b.id)
            kinds = {e["type"] for e in rec.events}
            if {"navigation", "frame"} <= kinds:
                break
            assert time.monotonic() < deadline, kinds
            time.sleep(0.3)
        assert rec.id == b.id and rec.live and rec.ended_at is None and rec.screen_bytes > 0
        assert [e["seq"] for e in rec.events] == list(range(1, len(rec.events) + 1))
        assert any(e["type"] == "navigation" and e["url"] == f"{pages}/page?again" for e in rec.events)

        frame = next(e for e in rec.events if e["type"] == "frame")
        jpeg = client.browsers.recording_frame(b.id, frame["offset"], frame["length"])
        assert len(jpeg) == frame["length"] and jpeg[:2] == b"\xff\xd8"

        later = client.browsers.recording(b.id, after=rec.events[-1]["seq"])
        assert all(e["seq"] > rec.events[-1]["seq"] for e in later.events)

    found = client.recordings.events(type=["navigation"], host="127.0.0.1", since=datetime.now(timezone.utc) - timedelta(hours=1))
    assert found.sessions >= 1 and not found.truncated
    assert any(m.browser == b.id and m.event["url"] == f"{pages}/page?again" for m in found.matches)
    assert all(m.event["type"] == "navigation" for m in found.matches)

    with pytest.raises(BadRequestError) as caught:
        client.recordings.events(limit=0)
    assert caught.value.field == "limit"


def test_an_unrecorded_browser_has_no_recording(service: Service, api_key: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    with client.browser() as b:
        with pytest.raises(NotFoundError):
            client.browsers.recording(b.id)
