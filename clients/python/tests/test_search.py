"""Search against the real index: typed results, pages, corrections, and the service's 400s."""

from __future__ import annotations

import pytest
from conftest import Service

from periscope import AuthenticationError, BadRequestError, Periscope, SearchResponse, SearchResult, SearchTry


def test_typed_results(service: Service, api_key: str) -> None:
    answer = Periscope(api_key=api_key, base_url=service.url).search("asyncio gather", language="en")
    assert isinstance(answer, SearchResponse) and answer.results
    assert all(isinstance(r, SearchResult) for r in answer.results)
    urls = [r.url for r in answer.results]
    assert "http://docs.example/index.html" in urls or "http://docs.example/" in urls
    first = answer.results[0]
    assert first.title == "Gathering coroutines"
    assert "gather" in first.snippet
    assert first.language == "en"
    assert answer.next_offset is None and answer.corrected is None


def test_pages_sites_and_corrections(service: Service, api_key: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    first = client.search("asyncio", count=1)
    assert len(first.results) == 1 and first.next_offset == 1
    second = client.search("asyncio", count=1, offset=first.next_offset)
    assert second.results[0].url != first.results[0].url

    elsewhere = client.search("asyncio", sites=["elsewhere.example"])
    assert elsewhere.results == []
    assert elsewhere.tries == [SearchTry(query="asyncio", language="en", why="every-site")]
    assert first.tries == []
    assert client.search("asyncio", exclude_sites=["docs.example"]).results == []

    corrected = client.search("asyncio gahter")
    assert corrected.corrected == "asyncio gather" and corrected.results
    assert client.search("asyncio gahter", exact=True).corrected is None


def test_a_malformed_query_names_its_field(service: Service, api_key: str) -> None:
    client = Periscope(api_key=api_key, base_url=service.url)
    with pytest.raises(BadRequestError) as caught:
        client.search("asyncio", count=0)
    err = caught.value
    assert (err.status, err.code, err.field) == (400, "invalid", "count")
    assert err.issues[0].message and isinstance(err.body, dict)

    with pytest.raises(BadRequestError) as caught:
        client.search("", sites=["https://python.org"])
    assert {i.field for i in caught.value.issues} == {"query", "sites"}


def test_a_bad_key(service: Service) -> None:
    with pytest.raises(AuthenticationError) as caught:
        Periscope(api_key="psk_0000000000000000_" + "A" * 43, base_url=service.url).search("asyncio")
    assert (caught.value.status, caught.value.code) == (401, "unauthorized")
