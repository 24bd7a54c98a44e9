"""The one-call page actions (``fetch``, ``screenshot``, ``pdf``) against the real service."""

from __future__ import annotations

import asyncio
import struct

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
