"""A light Streamlit client for server-side tests and benchmarks: it opens a page of the app from a link over
Streamlit's websocket (``/_stcore/stream``), as a browser's first visit does (one ``rerun_script`` with the link's
query string and the page's name), and reads until the script has finished. No browser, so 200 visits cost the
server's work only."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit


async def visit(base_url: str, link: str, timeout: float = 120.0) -> dict:
    """Open ``link`` (``/page?query`` or ``/?query``) in a fresh session and close it when its script finished:
    ``{"seconds": wall time, "elements": new elements drawn, "exception": text of an uncaught exception or ""}``."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    parts = urlsplit(link)
    message = BackMsg()
    message.rerun_script.query_string = parts.query
    message.rerun_script.page_name = parts.path.strip("/")
    uri = base_url.replace("http://", "ws://") + "/_stcore/stream"
    start, elements, exception = time.perf_counter(), 0, ""
    async with websockets.connect(uri, subprotocols=["streamlit"], origin=base_url, max_size=None,
                                  open_timeout=timeout, ping_interval=None) as ws:
        await ws.send(message.SerializeToString())
        while True:
            raw = await asyncio.wait_for(ws.recv(), timeout=timeout)
            if isinstance(raw, str):
                continue
            msg = ForwardMsg.FromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                elements += 1
                if msg.delta.new_element.WhichOneof("type") == "exception":
                    exception = msg.delta.new_element.exception.message
            elif kind == "script_finished":
                break
    return {"seconds": time.perf_counter() - start, "elements": elements, "exception": exception}


def visit_all(base_url: str, links: list[str], concurrency: int = 2, timeout: float = 120.0) -> list[dict]:
    """``visit`` every link, ``concurrency`` sessions at a time; results in link order."""
    async def run() -> list[dict]:
        gate = asyncio.Semaphore(concurrency)

        async def one(link: str) -> dict:
            async with gate:
                return await visit(base_url, link, timeout)

        return await asyncio.gather(*(one(link) for link in links))

    return asyncio.run(run())
