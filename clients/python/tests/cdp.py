"""A minimal Chrome DevTools Protocol client over websockets, for driving the remote browser in tests."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any, Awaitable, Callable, Dict, Mapping, Optional

try:
    from websockets.asyncio.client import connect as _connect

    _HEADERS = "additional_headers"
except ImportError:
    from websockets.legacy.client import connect as _connect  # type: ignore[assignment]

    _HEADERS = "extra_headers"


class CDP:
    """One DevTools connection; ``send`` waits for its answer, events are kept per method."""

    def __init__(self, ws: Any) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._waiting: Dict[int, "asyncio.Future[Dict[str, Any]]"] = {}
        self.events: Dict[str, list] = {}
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, url: str, headers: Mapping[str, str]) -> "CDP":
        ws = await _connect(url, max_size=64 * 1024 * 1024, **{_HEADERS: dict(headers)})
        return cls(ws)

    async def _read(self) -> None:
        async for raw in self._ws:
            message = json.loads(raw)
            waiter = self._waiting.pop(message.get("id", -1), None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)
            elif "method" in message:
                self.events.setdefault(message["method"], []).append(message)

    async def send(self, method: str, params: Optional[Dict[str, Any]] = None, session: Optional[str] = None) -> Dict[str, Any]:
        command: Dict[str, Any] = {"id": next(self._ids), "method": method, "params": params or {}}
        if session is not None:
            command["sessionId"] = session
        waiter: "asyncio.Future[Dict[str, Any]]" = asyncio.get_running_loop().create_future()
        self._waiting[command["id"]] = waiter
        await self._ws.send(json.dumps(command))
        answer = await asyncio.wait_for(waiter, 30)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    async def open_page(self, url: str) -> str:
        """A new tab at ``url``, attached with a flattened session, loaded; the session id."""
        target = await self.send("Target.createTarget", {"url": "about:blank"})
        attached = await self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        session = attached["sessionId"]
        await self.navigate(url, session)
        return session

    async def navigate(self, url: str, session: str) -> None:
        """Go to ``url`` and wait until that document has loaded."""
        await self.send("Page.navigate", {"url": url}, session=session)
        await self.wait_until(lambda: self.loaded(url, session))

    async def evaluate(self, expression: str, session: str, await_promise: bool = False) -> Any:
        result = await self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": await_promise},
            session=session,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def loaded(self, url: str, session: str) -> bool:
        check = f"document.readyState === 'complete' && location.href === {json.dumps(url)}"
        return bool(await self.evaluate(check, session))

    async def wait_until(self, check: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not await check():
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError("condition not met in time")
            await asyncio.sleep(0.1)

    async def close(self) -> None:
        await self._ws.close()
        self._reader.cancel()
