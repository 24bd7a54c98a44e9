"""The asyncio client against the real service: the same calls, awaited, on one event loop."""

from __future__ import annotations

import asyncio
import time

import pytest
from cdp import CDP
from conftest import DOWNLOAD_BODY, Service

from periscope import (
    AsyncBrowser,
    AsyncPeriscope,
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    RateLimitError,
)


def test_a_browser_driven_and_searched_alongside(service: Service, api_key: str, pages: str) -> None:
    async def main() -> None:
        client = AsyncPeriscope(api_key=api_key, base_url=service.url)
        async with client.browser() as b:
            assert isinstance(b, AsyncBrowser) and b.id.startswith("br_")
            assert b.headers["X-Browser-ID"] == b.id
            cdp = await CDP.connect(b.cdp_url, b.headers)
            try:
                # A search and the page load at once: neither blocks the loop.
                found, session = await asyncio.gather(client.search("asyncio gather"), cdp.open_page(f"{pages}/page"))
                assert await cdp.evaluate("document.title", session) == "Periscope from Python"
                assert found.results[0].title == "Gathering coroutines"

                await cdp.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": "/ignored"})
                await cdp.evaluate("document.getElementById('dl').click()", session)

                async def saved() -> bool:
                    return any(f.name == "report.txt" and f.complete for f in await b.downloads())

                await cdp.wait_until(saved)
                assert await b.download("report.txt") == DOWNLOAD_BODY
            finally:
                await cdp.close()

            up = await b.upload("a.txt", b"abc")
            assert [f.name for f in await b.uploads()] == ["a.txt"] and up.path == "/uploads/a.txt"
            await b.delete_upload("a.txt")
            assert await b.uploads() == []
            assert b.id in [x.id for x in await client.browsers.list(status="live")]
        assert b.ended is not None and b.ended.reason == "closed_by_client"

    asyncio.run(main())


def test_stopped_by_the_service_and_awaited(service: Service, api_key: str) -> None:
    async def main() -> None:
        client = AsyncPeriscope(api_key=api_key, base_url=service.url)
        b = await client.browser()  # awaited rather than entered: stopped by hand
        try:
            await asyncio.sleep(1.5)  # three of the service's pings, answered on this loop
            assert b.ended is None
            await client.browsers.stop(b.id)
            ended = await b.wait_ended(timeout=10)
            assert (ended.reason, ended.code) == ("stopped", 4410)
            with pytest.raises(NotFoundError):
                await b.version()
        finally:
            assert (await b.stop()).reason == "stopped"

    asyncio.run(main())


def test_typed_errors(service: Service) -> None:
    async def main() -> None:
        bad = AsyncPeriscope(api_key="psk_0000000000000000_" + "A" * 43, base_url=service.url)
        with pytest.raises(AuthenticationError):
            await bad.search("asyncio")
        with pytest.raises(AuthenticationError) as caught:
            async with bad.browser():
                pass
        assert caught.value.body["code"] == "unauthorized"

        one = AsyncPeriscope(api_key=service.create_key("async-one", max_instances=1), base_url=service.url)
        async with one.browser():
            with pytest.raises(RateLimitError) as limit:
                await one.browser()
            assert limit.value.retry_after is not None and limit.value.retry_after > 0

        limited = AsyncPeriscope(
            api_key=service.create_key("async-rate", rate_per_minute=1), base_url=service.url, max_retries=0
        )
        with pytest.raises(BadRequestError) as invalid:
            await limited.search("asyncio", count=0)  # counted, and answered 400
        assert invalid.value.field == "count"
        with pytest.raises(RateLimitError) as rate:
            await limited.search("asyncio")
        assert rate.value.retry_after is not None and rate.value.retry_after > 0

        # With retries on, the wait for Retry-After is on the loop: other work goes on meanwhile.
        retried = AsyncPeriscope(api_key=limited._config.api_key, base_url=service.url)
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.05)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        started = time.monotonic()
        answer = await retried.search("asyncio")
        ticker.cancel()
        assert answer.results and time.monotonic() - started >= 0.5 and ticks >= 5

    asyncio.run(main())
