"""Render pages in headless Chromium and record them with ``bookmarklet/collect.js``.

One :class:`Collector` owns one Chromium, launched by Playwright's async API on an event loop in a
background thread; its methods are plain blocking calls, usable from any thread. Several pages render
at once, each worker in a tab (browser context) of its own that it reuses and drives over the DevTools
protocol, and each page has a time limit: a page that fails or hangs becomes a :class:`CollectError`
while the rest go on.

A *stored* page (bytes saved earlier) is served at its own URL with no network: the main document
request is answered with the stored bytes and a content security policy under which the page refuses
every other request itself, so ``location``, relative links and the site are those of the original
page. Page scripts run (as in the reader's browser); a script or meta refresh that navigates away is
answered with 204 No Content, which keeps the stored page, popups are refused, WebRTC peer
connections do not exist, and dialogs are dismissed. Stored pages are laid out but never drawn.

Rendered stored pages can be cached on disk (``cache_dir``), keyed by everything that shapes the
result: the collector source, URL, bytes, content type, viewport and options.
"""
from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import gzip
import hashlib
import json
import os
import queue
import re
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence, Union
from urllib.parse import quote, urldefrag

from .charsets import BOMS, codec_declared_in
from .page import Page, PageError, expand_style_table
from .urls import STAND_IN_PATH

#: Debian's Chromium (we never download Playwright's own browsers): its headless shell when installed
#: (package chromium-headless-shell: the same engine without the full browser's hidden window, tab
#: strip and their compositor, which cost the browser process as much CPU per page as the page's own
#: layout and style), else the full browser in headless mode.
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
FULL_CHROMIUM = "/usr/lib/chromium/chromium"
CHROMIUM = HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else FULL_CHROMIUM
#: Headless in containers without a GPU; no background traffic of Chromium's own. The next three let
#: a tab keep its renderer process from page to page: with site isolation every page of a new site
#: started a process (about 10% of the CPU per page). Processes are never shared between tabs (browser
#: contexts), so a page that crashes or hangs its renderer still takes only its own tab down. The next
#: lets a tab opt out of drawing (DRAWS_NO_FRAMES_OFFLINE). The last makes the headless shell refuse
#: every popup: a popup (``window.open``, a ``target=_blank`` link a script clicks) is a tab of its own
#: that the stored page's policy and document interception do not cover, so it loaded its URL from the
#: network, scripts, images and all.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-site-isolation-trials",
    "--disable-features=site-per-process,IsolateOrigins",
    "--renderer-process-limit=1",
    "--enable-begin-frame-control",
    "--block-new-web-contents",
)
#: Playwright's own launch arguments left out: the full browser ignores --block-new-web-contents, and
#: its popup blocker, which Playwright turns off, refuses the popups no user clicked for (all of ours).
IGNORED_DEFAULT_ARGS = ("--disable-popup-blocking",)
#: Tabs for stored pages are created under begin-frame control and never asked for a frame, so nothing
#: is painted, rasterised or composited (about a tenth of the CPU per page); style and layout still run
#: whenever the page or collect.js needs them, so boxes and styles are the same (checked block for block
#: on 100 dragnet pages). Page scripts get no requestAnimationFrame or IntersectionObserver callbacks;
#: offline, those only animate or lazy-load what cannot load anyway. Live pages are drawn as usual.
DRAWS_NO_FRAMES_OFFLINE = True
#: A common laptop window: wide enough for desktop layouts (sidebars beside the article).
DEFAULT_VIEWPORT = (1280, 900)
#: Pages rendered at once: one per core and one more, whose work fills the cores while the others wait
#: on DevTools round trips (on 2 cores, 3 workers collected dragnet 40% faster than 2 at the same
#: latency per page; docs/bench-collect.md).
DEFAULT_WORKERS = (os.cpu_count() or 1) + 1
#: Whole-page limit (navigation, load, collection). Stored pages usually take well under a second.
DEFAULT_TIMEOUT_S = 30.0
#: Share of the page's time limit after which a page not yet parsed (no DOMContentLoaded) is stopped, as
#: a reader presses Esc, and what it shows is collected: a live server that stalls the body, or a
#: script the parser waits for that never comes, otherwise held the page until it timed out with
#: nothing; the other half is left for the collection.
STOP_LOADING_SHARE = 0.5
#: After DOMContentLoaded, wait at most this long for ``load``: stored pages' subresources are refused,
#: so it comes at once, unless a script keeps the page busy; then its scripts are stopped and what is
#: rendered is collected.
LOAD_WAIT_S = 2.0
#: A tab (browser context) is renewed after this many pages: page scripts and caches grow a
#: long-lived renderer's memory.
MAX_PAGES_PER_TAB = 100
#: Closing a context whose renderer hangs must not hang the collector.
CLOSE_TIMEOUT_S = 5.0
#: A reused tab's next page shows its first document within milliseconds when stored, or its renderer
#: at least answers a trivial evaluation in milliseconds when live (a slow server); one that does
#: neither in this long, twice, is hung by the page before (a script looping in a timer or in a
#: beforeunload, pagehide or unload handler), and the next page gets a fresh tab. A renderer only
#: slow to let go gets one too, which costs no more than opening a tab.
LEAVE_TIMEOUT_S = 1.0
#: Documents a live page may move through by script (``location.replace`` before it is shown, a
#: navigation while it is collected) before it counts as a redirect loop: real script redirects take
#: one or two steps; browsers allow 20 HTTP redirects, which Chromium follows within one document.
MAX_DOCUMENTS = 10
#: HTTP statuses from here on are errors: the document is the server's error page, not the page asked for.
FIRST_ERROR_STATUS = 400
#: Document types that are web pages; any other (an image, JSON, plain text, XML) has no page to collect.
PAGE_TYPES = ("text/html", "application/xhtml+xml")
#: How collect.js refuses a page (one of more than sitewise.page.MAX_BLOCKS blocks): it throws an Error
#: with this name, whose message is the reason, said as it is.
PAGE_REFUSED = "PageRefused"
#: Error messages from Playwright carry a long call log; one line is enough to say what failed.
_FIRST_LINE = re.compile(r"[^\n]*")


def collect_js_source() -> str:
    """The collector script, as shipped in the ``bookmarklet`` package."""
    return resources.files("sitewise.bookmarklet").joinpath("collect.js").read_text(encoding="utf-8")


@dataclass(frozen=True)
class StoredPage:
    """Bytes of a page saved earlier, to be rendered offline at their own URL."""

    url: str
    body: bytes
    content_type: str = "text/html"


#: What :meth:`Collector.collect_many` takes: a URL to load live, or a stored page.
Item = Union[str, StoredPage]


class PreviousPageHung(Exception):
    """The page a tab showed before hangs its renderer, so the tab cannot show the next one."""


class CollectError(Exception):
    """One page could not be collected; ``url`` says which, the message says why."""

    def __init__(self, url: str, message: str) -> None:
        super().__init__(f"{url}: {message}")
        self.url = url
        self.message = message


@dataclass
class Outcome:
    """The result of one page with how it went: exactly one of ``page`` and ``error`` is set."""

    page: Page | None
    error: CollectError | None
    #: Wall time of this page (context, navigation, load, collection, validation), seconds.
    seconds: float
    #: Time collect.js took inside the page, whole milliseconds (None when cached or failed).
    collect_ms: float | None = None
    cached: bool = False

    @property
    def result(self) -> Page | CollectError:
        return self.page if self.page is not None else self.error  # type: ignore[return-value]


def stored_url(url: str | None, site: str | None, page_id: str) -> str:
    """The URL to serve a stored page at: its own, or a stand-in on its site when it has none
    (``http://<site>/_sitewise/<id>``), so the page still belongs to the right site."""
    if url:
        return url
    return f"http://{site or 'unknown.invalid'}{STAND_IN_PATH}{quote(page_id, safe='')}"


def content_type_for(body: bytes, content_type: str = "text/html") -> str:
    """The content type to serve stored bytes with: as given when it names a charset or the page
    declares its own (BOM or ``<meta charset>``, which the browser honours); otherwise UTF-8 when the
    bytes are valid UTF-8, else windows-1252 (what an unlabelled old page most likely is)."""
    if "charset=" in content_type.lower() or _declares_charset(body):
        return content_type
    try:
        body.decode("utf-8")
        charset = "utf-8"
    except UnicodeDecodeError:
        charset = "windows-1252"
    return f"{content_type}; charset={charset}"


def _declares_charset(body: bytes) -> bool:
    """Whether the page names its charset as a browser reads it (a BOM, or a ``<meta>`` naming a known
    label outside comments: :func:`sitewise.charsets.codec_declared_in`, as ``decode_html`` reads it)."""
    return body.startswith(BOMS) or codec_declared_in(body) is not None


class Collector:
    """One headless Chromium that collects pages; use as a context manager.

    >>> with Collector(workers=2) as collector:
    ...     page = collector.collect_stored("https://example.com/a", b"<p>Hello</p>")
    """

    def __init__(
        self,
        workers: int = DEFAULT_WORKERS,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        viewport: tuple[int, int] = DEFAULT_VIEWPORT,
        cache_dir: str | os.PathLike[str] | None = None,
        include_html: bool = False,
        javascript: bool = True,
        executable_path: str = CHROMIUM,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        if not timeout_s > 0:  # NaN too
            raise ValueError("timeout_s must be positive")
        self.workers = workers
        self.timeout_s = timeout_s
        self.viewport = viewport
        self.cache_dir = Path(cache_dir).expanduser() if cache_dir else None
        self.include_html = include_html
        self.javascript = javascript
        self.executable_path = executable_path
        self._source = collect_js_source()
        # Evaluated as a function: defines the collector in the page, runs it, and returns
        # "<HTTP status> <document type> <milliseconds> <page JSON>" (one string crosses the wire far
        # faster than an object tree; the status is 0 when unknown).
        # The page's style and layout are brought up to date before the clock starts: a stored page
        # is never drawn, so nothing has laid it out yet, while in a reader's browser it has been.
        # Layout and clock are the collector's pristine built-ins: pages replace performance.now,
        # getBoundingClientRect or toFixed too, and collecting them failed.
        self._evaluate_js = (
            "(options) => {\n" + self._source + "\n"
            "const builtins = window.sitewiseBuiltins, clock = builtins.realm.Date;\n"
            "builtins.boxOf(document.documentElement);\n"
            "const started = clock.now();\n"
            "const json = window.sitewiseCollectJSON(options);\n"
            "const milliseconds = clock.now() - started;\n"
            "let status = 0;\n"
            "try { status = performance.getEntriesByType('navigation')[0].responseStatus || 0; } catch (error) {}\n"
            "return status + ' ' + document.contentType + ' ' + milliseconds + ' ' + json;\n}"
        )
        self._options = {"collector": "playwright", "includeHtml": include_html, "styleTable": True}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright: Any = None
        self._browser: _Browser | None = None
        self._browser_lock: asyncio.Lock | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> "Collector":
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the event loop thread and Chromium (done by ``with``)."""
        if self._loop is not None:
            return
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="sitewise-collector", daemon=True)
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self._launch(), self._loop).result()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close Chromium and stop the loop thread; safe to call twice."""
        loop = self._loop
        if loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=30)
        except Exception:  # a browser that is already gone must not stop the shutdown
            pass
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=30)
        loop.close()
        self._loop = self._thread = None

    async def _launch(self) -> None:
        from playwright.async_api import async_playwright

        self._browser_lock = asyncio.Lock()
        self._playwright = await async_playwright().start()
        await self._ensure_browser()

    async def _ensure_browser(self) -> "_Browser":
        """The browser, relaunched if it crashed (one crash must not fail every page after it)."""
        assert self._browser_lock is not None
        async with self._browser_lock:
            if self._browser is None or not self._browser.is_connected():
                browser = await self._playwright.chromium.launch(
                    executable_path=self.executable_path,
                    args=list(CHROMIUM_ARGS),
                    ignore_default_args=list(IGNORED_DEFAULT_ARGS),
                )
                self._browser = _Browser(browser, await browser.new_browser_cdp_session())
                await self._browser.session.send("Security.setIgnoreCertificateErrors", {"ignore": True})
            return self._browser

    async def _shutdown(self) -> None:
        if self._browser is not None:
            try:
                await self._browser.browser.close()
            finally:
                self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    # -- public API ------------------------------------------------------------------------------

    def collect_url(self, url: str) -> Page:
        """Load a live page (network allowed) and collect it; raises :class:`CollectError`."""
        return self._raise_or_page(self.run_many([url], progress=False)[0])

    def collect_stored(self, url: str, body: bytes, content_type: str = "text/html") -> Page:
        """Render stored bytes at ``url`` with the network blocked and collect the page; raises
        :class:`CollectError`."""
        return self._raise_or_page(self.run_many([StoredPage(url, body, content_type)], progress=False)[0])

    def collect_many(
        self,
        items: Iterable[Item],
        workers: int | None = None,
        timeout_s: float | None = None,
        progress: bool = True,
    ) -> list[Page | CollectError]:
        """Collect every item, several at once; results in input order, a failed page as its
        :class:`CollectError` (returned, not raised)."""
        return [outcome.result for outcome in self.run_many(items, workers, timeout_s, progress)]

    def run_many(
        self,
        items: Iterable[Item],
        workers: int | None = None,
        timeout_s: float | None = None,
        progress: bool = True,
    ) -> list[Outcome]:
        """Like :meth:`collect_many`, with each page's timings."""
        items = list(items)
        outcomes: list[Outcome | None] = [None] * len(items)
        for index, outcome in self.iter_many(items, workers, timeout_s, progress):
            outcomes[index] = outcome
        return outcomes  # type: ignore[return-value]  # every index is filled

    def iter_many(
        self,
        items: Iterable[Item],
        workers: int | None = None,
        timeout_s: float | None = None,
        progress: bool = True,
    ) -> Iterator[tuple[int, Outcome]]:
        """Collect every item, yielding ``(input index, outcome)`` as pages finish (cached ones
        first), so a caller can write each page out and let it go. Stopping early cancels the rest."""
        from tqdm import tqdm

        items = list(items)
        finished: queue.SimpleQueue[tuple[int, Outcome]] = queue.SimpleQueue()
        with tqdm(total=len(items), desc="collect", unit="page", file=sys.stderr, disable=not progress) as bar:
            pending = []
            for index, item in enumerate(items):
                cached = self._cached(item)
                if cached is None:
                    pending.append((index, item))
                else:
                    bar.update(1)
                    yield index, cached
            if not pending:
                return
            if self._loop is None:
                raise RuntimeError("the collector is not started: use 'with Collector() as collector'")
            work = asyncio.run_coroutine_threadsafe(
                self._run_all(pending, workers or self.workers, timeout_s or self.timeout_s, finished.put),
                self._loop,
            )
            try:
                for _ in pending:
                    index, outcome = _next_finished(finished, work)
                    if outcome.page is not None:
                        self._store_in_cache(items[index], outcome.page)
                    bar.update(1)
                    yield index, outcome
                work.result()  # the workers are closing their tabs: let them finish
            finally:
                work.cancel()  # stopped early (or interrupted): the rest is not needed

    @staticmethod
    def _raise_or_page(outcome: Outcome) -> Page:
        if outcome.error is not None:
            raise outcome.error
        assert outcome.page is not None
        return outcome.page

    # -- rendering -------------------------------------------------------------------------------

    async def _run_all(
        self,
        indexed: Sequence[tuple[int, Item]],
        workers: int,
        timeout_s: float,
        report: Callable[[tuple[int, Outcome]], None],
    ) -> None:
        waiting = deque(indexed)

        async def worker() -> None:
            tab: _Tab | None = None
            try:
                while waiting:
                    index, item = waiting.popleft()
                    outcome, tab = await self._run_one(tab, item, timeout_s)
                    report((index, outcome))
            finally:
                if tab is not None:
                    await tab.close()

        await asyncio.gather(*(worker() for _ in range(min(workers, len(indexed)))))

    async def _run_one(self, tab: "_Tab | None", item: Item, timeout_s: float) -> tuple[Outcome, "_Tab | None"]:
        """Collect one item in the worker's tab (opened or renewed as needed). A tab that failed a
        page is closed: it may be hung, crashed or showing an error page."""
        url = item.url if isinstance(item, StoredPage) else item
        started = time.perf_counter()
        try:
            offline = isinstance(item, StoredPage)
            if tab is not None and (tab.uses >= MAX_PAGES_PER_TAB or tab.offline != offline):
                await tab.close()
                tab = None
            if tab is None:
                tab = await asyncio.wait_for(self._open_tab(offline), timeout_s)
            try:
                data, collect_ms = await self._render(tab, item, timeout_s)
            except PreviousPageHung:
                await tab.close()
                tab = None  # closed: not to be closed again if the fresh one fails to open
                tab = await asyncio.wait_for(self._open_tab(offline), timeout_s)
                data, collect_ms = await self._render(tab, item, timeout_s)
            return Outcome(Page.from_dict(data), None, time.perf_counter() - started, collect_ms), tab
        except asyncio.TimeoutError:
            message = f"timed out after {timeout_s:g}s"
        except PageError as exc:
            message = f"collected page is invalid: {exc}"
        except Exception as exc:  # any failure of one page is reported, never fatal to the batch
            message = _FIRST_LINE.match(str(exc).strip()).group(0) or type(exc).__name__  # type: ignore[union-attr]
        if tab is not None:
            await tab.close()
        return Outcome(None, CollectError(url, message), time.perf_counter() - started), None

    async def _render(self, tab: "_Tab", item: Item, timeout_s: float) -> tuple[dict[str, Any], float]:
        stop_after_s = timeout_s * STOP_LOADING_SHARE
        return await asyncio.wait_for(tab.render(item, self._evaluate_js, self._options, stop_after_s), timeout_s)

    async def _open_tab(self, offline: bool) -> "_Tab":
        """A tab for stored pages (offline) or for live ones."""
        return await _Tab.open(await self._ensure_browser(), self.viewport, self.javascript, offline)

    # -- disk cache ------------------------------------------------------------------------------

    def _cache_path(self, item: Item) -> Path | None:
        if self.cache_dir is None or not isinstance(item, StoredPage):
            return None  # live pages change: never cached
        digest = hashlib.sha256()
        for part in (
            self._source.encode("utf-8"),
            item.url.encode("utf-8"),
            item.content_type.encode("utf-8"),
            repr((self.viewport, self.include_html, self.javascript)).encode("utf-8"),
            item.body,
        ):
            digest.update(hashlib.sha256(part).digest())
        key = digest.hexdigest()
        return self.cache_dir / key[:2] / f"{key}.json.gz"

    def _cached(self, item: Item) -> Outcome | None:
        path = self._cache_path(item)
        if path is None or not path.is_file():
            return None
        started = time.perf_counter()
        try:
            page = Page.from_dict(json.loads(gzip.decompress(path.read_bytes())))
        except (OSError, ValueError):
            return None  # a damaged entry is rendered again (and rewritten)
        return Outcome(page, None, time.perf_counter() - started, cached=True)

    def _store_in_cache(self, item: Item, page: Page) -> None:
        path = self._cache_path(item)
        if path is None:
            return
        data = gzip.compress(json.dumps(page.to_dict(), ensure_ascii=False).encode("utf-8"), 6)
        # Write then rename, so a reader (or a crash) never sees half an entry. A cache that cannot be
        # written (read-only, full, a file in the way) only goes unfilled: it must not stop the batch.
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except OSError:
            Path(temporary).unlink(missing_ok=True)


def _next_finished(
    finished: "queue.SimpleQueue[tuple[int, Outcome]]", work: "concurrent.futures.Future[None]"
) -> tuple[int, Outcome]:
    """The next finished page; raises what broke the batch if it ended without reporting one."""
    while True:
        try:
            return finished.get(timeout=0.5)
        except queue.Empty:
            if work.done():
                try:
                    return finished.get_nowait()  # reported just before the batch ended
                except queue.Empty:
                    pass
                work.result()  # raises the batch's own failure, if any
                raise RuntimeError("the collector stopped before every page was reported")


#: The content security policy stored documents are served with: nothing is fetched (scripts, styles,
#: images, fonts, media, frames, XHR/fetch, WebSockets, form posts), while what is inside the page
#: itself works as it did online: inline scripts and styles, eval, data: and blob: URLs. Frames and
#: later navigations are refused by the document interception too.
OFFLINE_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' data: blob:; "
    "style-src 'unsafe-inline' data: blob:; img-src data: blob:; font-src data: blob:; "
    "media-src data: blob:; worker-src blob:; form-action 'none'"
)
#: Run in every frame of a stored page before the page's own scripts (each new document's window,
#: iframes made by script included, so a fresh iframe's pristine copy is gone too): WebRTC sends STUN over
#: UDP and TURN over TCP to any host past both the content security policy and the document
#: interception, and no Chromium switch stops it in both binaries (docs/collector.md). A peer
#: connection is WebRTC's only way onto the network: the other RTC interfaces cannot be constructed or
#: only describe one, and workers have none.
NO_WEBRTC_SCRIPT = "delete window.RTCPeerConnection; delete window.webkitRTCPeerConnection;"
#: The proxy of stored pages' contexts: nothing listens at loopback port 1, so whatever the browser itself
#: fetches for a stored page outside the policy and the document interception fails at once, loopback
#: included ("<-loopback>": Chromium never proxies it otherwise). Speculation rules did: a page's
#: ``<script type=speculationrules>`` prefetched and prerendered its URLs from the network, in both
#: binaries, and no switch or DevTools command stopped it (``Page.setPrerenderingAllowed`` still let the
#: prefetch through; ``--disable-blink-features=SpeculationRules`` is ignored).
DEAD_END_PROXY = {"proxyServer": "http://127.0.0.1:1", "proxyBypassList": "<-loopback>"}
#: Our name for the main frame's Page.frameStoppedLoading among its lifecycle events.
STOPPED_LOADING = "stoppedLoading"


class _Browser:
    """The Chromium that Playwright launched, and a DevTools session on it through which our tabs talk
    to their pages.

    Tabs are browser contexts and pages of our own, driven over the DevTools protocol (each with a
    session of its own, tunnelled through this one), not Playwright pages: Playwright instruments
    every page it owns (console, errors, network, frames, lifecycle and an isolated world of its own,
    each relayed to Python), which cost more CPU per page than rendering it. Playwright still
    launches, watches and closes the browser; it leaves contexts it did not create alone.
    """

    def __init__(self, browser: Any, session: Any) -> None:
        self.browser = browser
        self.session = session
        #: Open tabs by DevTools session id.
        self.tabs: dict[str, _Tab] = {}
        session.on("Target.receivedMessageFromTarget", self._on_message)
        session.on("Target.detachedFromTarget", self._on_detached)
        browser.on("disconnected", self._on_disconnected)

    def is_connected(self) -> bool:
        return bool(self.browser.is_connected())

    def _on_message(self, event: dict[str, Any]) -> None:
        tab = self.tabs.get(event.get("sessionId", ""))
        if tab is not None:
            tab.on_message(json.loads(event["message"]))

    def _on_detached(self, event: dict[str, Any]) -> None:
        tab = self.tabs.pop(event.get("sessionId", ""), None)
        if tab is not None:
            tab.fail("the page was closed")

    def _on_disconnected(self, *_: Any) -> None:
        for tab in list(self.tabs.values()):
            tab.fail("the browser closed")
        self.tabs.clear()


class _Tab:
    """One browser context with one page, reused page after page by one worker: a fresh context per
    page costs about as much as rendering the page.

    Stored pages are served through the DevTools protocol: only document requests are paused and
    answered here, and the stored document comes with a content security policy
    (:data:`OFFLINE_POLICY`) under which the page itself refuses every other request before it is
    made; WebRTC, which that policy does not govern, is taken from every frame
    (:data:`NO_WEBRTC_SCRIPT`). A page asks for some forty images, scripts and styles; answering each in Python cost more
    CPU than rendering, and even refusing them by URL (``Network.setBlockedURLs``) needs the Network
    domain, whose events (two or three per request) cost Python more than collect.js costs the page.
    """

    def __init__(self, browser: _Browser, context_id: str, session_id: str, javascript: bool, offline: bool) -> None:
        self.browser = browser
        self.context_id = context_id
        self.session_id = session_id
        #: Whether pages may run their own scripts, and whether the current one may.
        self.javascript = javascript
        self.scripts_allowed = True
        self.uses = 0
        #: Stored pages (served by us, nothing fetched, never drawn) or live ones, for the tab's life.
        self.offline = offline
        self.item: Item | None = None
        self.served = False
        #: Whether the current page was stopped before it was parsed (STOP_LOADING_SHARE).
        self.stopped = False
        self.main_frame_id = ""
        self._next_id = 0
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        #: Lifecycle events seen per document (loader id) of the main frame, and a wake-up for waiters.
        self._lifecycle: dict[str, set[str]] = {}
        self._lifecycle_changed = asyncio.Event()
        #: The main frame's current document (loader id) and its URL, the documents it has shown since
        #: the last navigation we started, in order, and whether it is navigating to another.
        self._document = ""
        self._url = "about:blank"
        self._documents: list[str] = []
        self._navigating = False
        self._failure: str | None = None
        self._answering: set[asyncio.Future[None]] = set()

    @classmethod
    async def open(cls, browser: _Browser, viewport: tuple[int, int], javascript: bool, offline: bool) -> "_Tab":
        created = await browser.session.send(
            "Target.createBrowserContext", {"disposeOnDetach": True, **(DEAD_END_PROXY if offline else {})}
        )
        context_id = created["browserContextId"]
        try:
            target = await browser.session.send(
                "Target.createTarget",
                {"url": "about:blank", "browserContextId": context_id,
                 "enableBeginFrameControl": offline and DRAWS_NO_FRAMES_OFFLINE},
            )
            attached = await browser.session.send(
                "Target.attachToTarget", {"targetId": target["targetId"], "flatten": False}
            )
            tab = cls(browser, context_id, attached["sessionId"], javascript, offline)
            browser.tabs[tab.session_id] = tab
            tree = await tab.send("Page.getFrameTree")
            tab.main_frame_id = tree["frameTree"]["frame"]["id"]
            await tab.send("Inspector.enable")  # for Inspector.targetCrashed
            await tab.send("Page.enable")
            await tab.send("Page.setLifecycleEventsEnabled", {"enabled": True})
            width, height = viewport
            await tab.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            )
            await tab._allow_scripts(javascript)
            if offline:
                await tab.send("Fetch.enable", {"patterns": [{"urlPattern": "*", "resourceType": "Document"}]})
                await tab.send("Page.addScriptToEvaluateOnNewDocument", {"source": NO_WEBRTC_SCRIPT})
            return tab
        except BaseException:
            await _dispose_context(browser, context_id)
            raise

    # -- the DevTools session ----------------------------------------------------------------------

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a command to the page and return its result; raises RuntimeError with its error."""
        if self._failure is not None:
            raise RuntimeError(self._failure)
        self._next_id += 1
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[self._next_id] = reply
        message = {"id": self._next_id, "method": method, "params": params or {}}
        await self.browser.session.send(
            "Target.sendMessageToTarget", {"sessionId": self.session_id, "message": json.dumps(message)}
        )
        answer = await reply
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error'].get('message', answer['error'])}")
        return answer.get("result", {})

    def on_message(self, message: dict[str, Any]) -> None:
        if "id" in message:
            reply = self._replies.pop(message["id"], None)
            if reply is not None and not reply.done():
                reply.set_result(message)
            return
        method, params = message.get("method"), message.get("params", {})
        if method == "Page.lifecycleEvent" and params.get("frameId") == self.main_frame_id:
            self._note_lifecycle(params.get("loaderId", ""), params.get("name", ""))
        elif method == "Page.frameNavigated" and params.get("frame", {}).get("id") == self.main_frame_id:
            self._document = params["frame"].get("loaderId", "")
            self._url = params["frame"].get("url", "")  # without its fragment
            self._documents.append(self._document)
            self._navigating = False
            self._lifecycle_changed.set()  # a waiter on the document it replaced moves on
        elif method == "Page.frameStartedNavigating" and params.get("frameId") == self.main_frame_id:
            self._navigating = True
        elif method == "Page.frameStoppedLoading" and params.get("frameId") == self.main_frame_id:
            # Also when a script's navigation (answered with 204) cut the document's lifecycle short:
            # Chromium then reports neither its DOMContentLoaded nor its load.
            self._navigating = False
            self._note_lifecycle(self._document, STOPPED_LOADING)
        elif method == "Fetch.requestPaused":
            self._spawn(self._answer_document_request(params))
        elif method == "Page.javascriptDialogOpening":
            self._spawn(self._dismiss_dialog())
        elif method == "Inspector.targetCrashed":
            self.fail("the page crashed")

    def _note_lifecycle(self, document: str, name: str) -> None:
        self._lifecycle.setdefault(document, set()).add(name)
        self._lifecycle_changed.set()

    def fail(self, reason: str) -> None:
        """The page is gone: every wait on it ends with ``reason``."""
        self._failure = reason
        for reply in self._replies.values():
            if not reply.done():
                reply.set_exception(RuntimeError(reason))
        self._replies.clear()
        self._lifecycle_changed.set()

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._answering.add(task)  # the loop holds tasks weakly: keep each until it is done
        task.add_done_callback(self._answering.discard)

    # -- rendering ---------------------------------------------------------------------------------

    async def render(
        self, item: Item, evaluate_js: str, options: dict[str, Any], stop_after_s: float
    ) -> tuple[dict[str, Any], float]:
        """Load the item (stopped when not parsed after ``stop_after_s``), let it settle briefly, and run
        the collector: (page dict, collect.js ms)."""
        self.uses += 1
        self.item, self.served = item, False
        url = item.url if isinstance(item, StoredPage) else item
        # The previous page's cookies are not this page's.
        await self.browser.session.send("Storage.clearCookies", {"browserContextId": self.context_id})
        await self._allow_scripts(self.javascript)
        document, loaded = await self._load(url, stop_after_s)
        if not loaded:
            # Still loading, most often a script that never settles: offline, an image error handler
            # that retries forever floods the page with events and starves the collector. Stop the
            # page's scripts and collect what is rendered.
            await self._allow_scripts(False)
        answer = await self._evaluate_in(document, f"({evaluate_js})({json.dumps(options)})")
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            description = str(details.get("exception", {}).get("description") or details.get("text"))
            name, _, reason = description.partition(": ")
            if name == PAGE_REFUSED:
                raise RuntimeError(reason)
            raise RuntimeError(f"collect.js failed: {description}")
        status, document_type, milliseconds, json_text = answer["result"]["value"].split(" ", 3)
        _check_document(int(status), document_type)
        data = expand_style_table(json.loads(json_text))
        if self.stopped and not data.get("blocks"):
            raise RuntimeError(f"still loading after {stop_after_s:g}s, with nothing shown")
        return data, float(milliseconds)

    async def _evaluate_in(self, document: str, expression: str) -> dict[str, Any]:
        """Evaluate the expression in the document. A live page that navigates meanwhile tears the
        document from under it (the evaluation fails): it is evaluated again in the document the page
        moved to."""
        while True:
            try:
                answer = await self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
                if "exceptionDetails" not in answer or not await self._navigated_from(document):
                    return answer
            except RuntimeError:
                if not await self._navigated_from(document):
                    raise
            document = await self._reached(self._documents[-1], "DOMContentLoaded")

    async def _navigated_from(self, document: str) -> bool:
        """Whether the main frame moved on from ``document``, once a navigation it started (which
        Chromium may report only after the evaluation it broke) has shown a document or stopped."""
        while self._navigating and self._failure is None:
            self._lifecycle_changed.clear()
            await self._lifecycle_changed.wait()
        return self._moved_on(document)

    async def _load(self, url: str, stop_after_s: float) -> tuple[str, bool]:
        """Navigate the main frame, wait for DOMContentLoaded (stopping the page when it has shown a
        document but not come after ``stop_after_s``), then for ``load`` at most
        :data:`LOAD_WAIT_S`: the document shown (its loader id), and whether ``load`` came. Lifecycle
        events are matched to the document: the previous page's late events, or a navigation a script
        starts and we answer with 204, are not mistaken for it. A live page that moves on by script
        is followed to the document it moves to."""
        if self._url == urldefrag(url).url:
            await self.send("Page.navigate", {"url": "about:blank"})  # else it would only scroll
        self._lifecycle.clear()
        self._documents.clear()
        navigation = asyncio.ensure_future(self.send("Page.navigate", {"url": url}))
        navigation.add_done_callback(lambda task: task.cancelled() or task.exception())  # left if timed out
        if self.uses > 1 and not await self._let_go(navigation):
            navigation.cancel()
            raise PreviousPageHung()
        navigated = await navigation
        if navigated.get("isDownload"):
            raise RuntimeError("a download, not a page")
        if navigated.get("errorText"):
            raise RuntimeError(f"{navigated['errorText']} at {url}")
        parsed = asyncio.ensure_future(self._reached(navigated.get("loaderId", ""), "DOMContentLoaded"))
        self.stopped = False
        try:
            done, _ = await asyncio.wait({parsed}, timeout=stop_after_s)
            if not done and self._documents:
                self.stopped = True
                await self.send("Page.stopLoading")  # ends the document's loading: DOMContentLoaded and load come
            document = await parsed
        finally:
            parsed.cancel()  # when this load is given up
        try:
            return await asyncio.wait_for(self._reached(document, "load"), LOAD_WAIT_S), True
        except asyncio.TimeoutError:
            return self._documents[-1] if self._documents else document, False

    async def _let_go(self, navigation: "asyncio.Future[dict[str, Any]]") -> bool:
        """Whether the page shown before lets the navigation go on: it has once the navigation shows a
        document or ends, or, when neither came within :data:`LEAVE_TIMEOUT_S` (a slow server), once the
        renderer answers a trivial evaluation."""
        try:
            await asyncio.wait_for(self._shown_or_ended(navigation), LEAVE_TIMEOUT_S)
            return True
        except asyncio.TimeoutError:
            pass
        try:
            await asyncio.wait_for(self.send("Runtime.evaluate", {"expression": "0"}), LEAVE_TIMEOUT_S)
            return True
        except asyncio.TimeoutError:
            return False

    async def _shown_or_ended(self, navigation: "asyncio.Future[dict[str, Any]]") -> None:
        """Wait until the main frame shows the navigation's first document, or the navigation failed."""
        while not self._documents:
            if navigation.done() and (navigation.exception() is not None or "errorText" in navigation.result()):
                return
            self._lifecycle_changed.clear()
            changed = asyncio.ensure_future(self._lifecycle_changed.wait())
            try:
                await asyncio.wait({changed} if navigation.done() else {changed, navigation},
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                changed.cancel()

    async def _reached(self, document: str, name: str) -> str:
        """Wait until the main frame's document reached lifecycle event ``name``, following it to the
        documents it moves on to (at most :data:`MAX_DOCUMENTS`); the document that did."""
        while True:
            await self._lifecycle_event(document, name)
            if not self._moved_on(document):
                return document
            if len(self._documents) > MAX_DOCUMENTS:
                raise RuntimeError(f"the page kept navigating: more than {MAX_DOCUMENTS} documents in a row (a redirect loop?)")
            document = self._documents[-1]

    def _moved_on(self, document: str) -> bool:
        """Whether the main frame has shown another document since ``document``."""
        return bool(self._documents) and self._documents[-1] != document

    async def _lifecycle_event(self, document: str, name: str) -> None:
        """Wait until the document reached ``name``, stopped loading before it, or was replaced."""
        while not self._lifecycle.get(document, set()) & {name, STOPPED_LOADING} and not self._moved_on(document):
            if self._failure is not None:
                raise RuntimeError(self._failure)
            self._lifecycle_changed.clear()
            await self._lifecycle_changed.wait()

    async def _allow_scripts(self, allowed: bool) -> None:
        if allowed != self.scripts_allowed:
            await self.send("Emulation.setScriptExecutionDisabled", {"value": not allowed})
            self.scripts_allowed = allowed

    async def _dismiss_dialog(self) -> None:
        try:
            await self.send("Page.handleJavaScriptDialog", {"accept": False})
        except Exception:
            pass  # already closed, or the page is gone

    async def _answer_document_request(self, event: dict[str, Any]) -> None:
        """The first main-frame document gets the stored bytes; later main-frame navigations (scripts,
        meta refresh) get 204, which keeps the stored page; frames get nothing. Every paused request
        is answered, even when something goes wrong, so none is left hanging."""
        request_id = event["requestId"]
        item = self.item
        try:
            if event.get("frameId") != self.main_frame_id or not isinstance(item, StoredPage):
                await self.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})
            elif not self.served:
                self.served = True
                headers = [
                    {"name": "Content-Type", "value": content_type_for(item.body, item.content_type)},
                    {"name": "Content-Security-Policy", "value": OFFLINE_POLICY},
                ]
                await self.send(
                    "Fetch.fulfillRequest",
                    {"requestId": request_id, "responseCode": 200, "responseHeaders": headers,
                     "body": base64.b64encode(item.body).decode("ascii")},
                )
            else:
                await self.send("Fetch.fulfillRequest", {"requestId": request_id, "responseCode": 204, "body": ""})
        except Exception:
            try:
                await self.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "Failed"})
            except Exception:
                pass  # already answered, or the page is gone

    async def close(self) -> None:
        self.browser.tabs.pop(self.session_id, None)
        self.fail("the tab was closed")
        await _dispose_context(self.browser, self.context_id)


def _check_document(status: int, document_type: str) -> None:
    """Refuse a document that is not the page asked for: the server's error page, or no web page
    at all (an image, JSON, plain text), which has nothing to collect."""
    if status >= FIRST_ERROR_STATUS:
        raise RuntimeError(f"HTTP {status}: the server answered with an error page")
    if document_type not in PAGE_TYPES:
        raise RuntimeError(f"not a web page but {document_type}")


async def _dispose_context(browser: _Browser, context_id: str) -> None:
    """Close a context and its page. A context whose renderer hangs must not hang the collector, and
    one of a crashed or closed browser cannot close: nothing is left to do then."""
    if not browser.is_connected():
        return
    closing = asyncio.ensure_future(browser.session.send("Target.disposeBrowserContext", {"browserContextId": context_id}))
    closing.add_done_callback(lambda task: task.cancelled() or task.exception())
    try:
        await asyncio.wait_for(asyncio.shield(closing), CLOSE_TIMEOUT_S)
    except Exception:
        pass  # a hung context goes with the browser


def collect_many(
    items: Iterable[Item],
    workers: int = DEFAULT_WORKERS,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    progress: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
) -> list[Page | CollectError]:
    """Collect items with a collector of their own (see :meth:`Collector.collect_many`)."""
    with Collector(workers=workers, timeout_s=timeout_s, cache_dir=cache_dir) as collector:
        return collector.collect_many(items, progress=progress)

