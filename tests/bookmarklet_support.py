"""Helpers for the bookmarklet's end-to-end tests: the app on a real HTTP server thread, Chromium through
Playwright with every request off loopback aborted, and running the bookmarklet as a reader would."""
from __future__ import annotations

import contextlib
import gzip
import http.server
import json
import threading
from typing import Any, Iterator
from urllib.parse import unquote

from werkzeug.serving import make_server

from sitewise.server.bookmarklet import bookmarklet_href

CHROMIUM = "/usr/lib/chromium/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LOOPBACK_PREFIXES = ("http://127.0.0.1:", "http://localhost:")

#: Waits for the bookmarklet's run and returns its state, as JSON.
READY_JS = """() => new Promise((resolve, reject) => {
  const started = Date.now();
  (function wait() {
    if (window.sitewise && window.sitewise.ready) return window.sitewise.ready.then(s => resolve(JSON.stringify(s)));
    if (Date.now() - started > 15000) return reject(new Error("the bookmarklet did not start"));
    setTimeout(wait, 20);
  })();
})"""

#: Texts of the highlighted elements, in document order.
HIGHLIGHTED_JS = """() => JSON.stringify(window.sitewise.highlightedElements().map(e => e.textContent.replace(/\\s+/g, ' ').trim()))"""

#: The panel's visible text (it lives in an open shadow root).
PANEL_TEXT_JS = """() => { const host = document.querySelector('sitewise-panel');
  return JSON.stringify(host ? host.shadowRoot.textContent : null); }"""


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright's sync API (for a module-scoped fixture)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def running(server: http.server.HTTPServer) -> Iterator[str]:
    """Serve with ``server`` in a daemon thread on loopback; yields its base URL, shuts it down after."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serve_app(app: Any) -> Iterator[str]:
    """The Flask app on a real threaded HTTP server on loopback; yields its base URL."""
    with running(make_server("127.0.0.1", 0, app, threaded=True)) as base_url:
        yield base_url


@contextlib.contextmanager
def serve_html(pages: dict[str, tuple[str, str]], content_type: str = "text/html") -> Iterator[str]:
    """Serve ``path → (Content-Security-Policy, HTML)`` on loopback; yields the base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            policy, html = pages.get(self.path, ("", "<!DOCTYPE html><title>Not found</title>"))
            body = html.encode("utf-8")
            self.send_response(200 if self.path in pages else 404)
            self.send_header("Content-Type", f"{content_type}; charset=utf-8")
            if policy:
                self.send_header("Content-Security-Policy", policy)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with running(http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as base_url:
        yield base_url


def loader_code(server: str) -> str:
    """The JavaScript the installed bookmark runs (its javascript: URL, decoded)."""
    return unquote(bookmarklet_href(server)[len("javascript:"):])


def loopback_only(route: Any) -> None:
    """Playwright route handler: loopback requests go through, everything else is aborted."""
    try:
        if route.request.url.startswith(LOOPBACK_PREFIXES):
            route.continue_()
        else:
            route.abort()
    except Exception:  # the page may be gone already; never leave a route unanswered on purpose
        with contextlib.suppress(Exception):
            route.abort()


def click_bookmarklet(page: Any, server: str) -> dict[str, Any]:
    """Run the bookmarklet in ``page`` and wait for it to finish; returns its state."""
    page.evaluate(loader_code(server))
    return json.loads(page.evaluate(READY_JS))


def highlighted(page: Any) -> list[str]:
    return json.loads(page.evaluate(HIGHLIGHTED_JS))


def panel_text(page: Any) -> str | None:
    return json.loads(page.evaluate(PANEL_TEXT_JS))


def normal(text: str) -> str:
    return " ".join(text.split())


def body_of(sent: bytes) -> bytes:
    """A request's body as the server reads it (the bookmarklet gzips large ones)."""
    return gzip.decompress(sent) if sent[:2] == b"\x1f\x8b" else sent
