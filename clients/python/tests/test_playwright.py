"""Playwright for Python over the client's two lines, when Playwright is installed (it is not on CI)."""

from __future__ import annotations

import pytest
from conftest import Service

from periscope import Periscope

sync_api = pytest.importorskip("playwright.sync_api")


def test_playwright_connects_over_cdp(service: Service, api_key: str, pages: str) -> None:
    with Periscope(api_key=api_key, base_url=service.url).browser() as b, sync_api.sync_playwright() as p:
        browser = p.chromium.connect_over_cdp(b.cdp_url, headers=b.headers)
        page = browser.contexts[0].new_page()
        page.goto(f"{pages}/page")
        assert page.title() == "Periscope from Python"
        browser.close()
