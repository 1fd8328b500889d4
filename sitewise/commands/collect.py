"""``sitewise collect``: render pages in headless Chromium with the collector and keep what it records.

Inputs are URLs (loaded live), local HTML files or folders of them (rendered offline at their
``file://`` URL, or under ``--url-base``), or a manifest of stored pages (rendered offline at their
own URL). Pages go to the store (default), to a sitewise server (``--server``), or to JSON files
(``--out``). A page that fails gets one line on stderr; the rest go on.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sitewise.collect import Item
    from sitewise.page import Page

#: File name endings taken from a folder given as input.
HTML_SUFFIXES = (".html", ".htm")
#: Server answers that mean "try again later" (rate limit, store briefly down).
RETRIED_STATUSES = (429, 503)
#: Beyond this many retries of one upload, the page is reported as failed.
UPLOAD_RETRIES = 5
#: Seconds to wait for the server to answer one upload.
UPLOAD_TIMEOUT_S = 60
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def register(subparsers: argparse._SubParsersAction) -> None:
    from sitewise.collect import DEFAULT_TIMEOUT_S, DEFAULT_WORKERS

    parser = subparsers.add_parser(
        "collect",
        help="render pages in headless Chromium and record their blocks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("inputs", nargs="*", metavar="URL|FILE|DIR", help="pages to collect")
    parser.add_argument("--manifest", metavar="M", help="a manifest of stored pages (file or set folder)")
    parser.add_argument("--limit", type=int, metavar="N", help="collect at most N pages")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS, metavar="N",
                        help=f"pages rendered at once (default {DEFAULT_WORKERS})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S",
                        help=f"seconds allowed per page (default {DEFAULT_TIMEOUT_S:g})")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--out", metavar="DIR", help="write one JSON file per page into DIR")
    where.add_argument("--server", metavar="URL", help="upload each page to a sitewise server (URL/api/pages); with SITEWISE_ADMIN_TOKEN set, as the trusted operator")
    parser.add_argument("--url-base", metavar="URL",
                        help="serve local files under this URL (e.g. http://localhost/) instead of file://")
    parser.add_argument("--cache", metavar="DIR", help="reuse pages rendered earlier from this cache folder")
    parser.add_argument("--html", action="store_true", help="keep each page's serialized DOM")
    parser.add_argument("--no-javascript", action="store_true", help="do not run the pages' own scripts")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run, store_hint="without the store: --out DIR or --server URL")


@dataclass(frozen=True)
class Job:
    """One page to collect: what to render, a label naming it in messages, and a name for its file
    (``--out``): the manifest id, the file's path inside the folder given, or the URL."""

    label: str
    item: "Item"
    name: str


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from sitewise.collect import Collector

    _check_arguments(args)
    jobs, problems = _jobs(args)
    for problem in problems:
        print(f"skipped {problem}", file=sys.stderr)
    if not jobs:
        raise ValueError("nothing to collect: give URLs, files or --manifest")
    sink = _sink(args)
    started = time.perf_counter()
    stored = failed = 0
    with Collector(
        workers=args.workers,
        timeout_s=args.timeout,
        cache_dir=args.cache,
        include_html=args.html,
        javascript=not args.no_javascript,
    ) as collector:
        outcomes = collector.iter_many((job.item for job in jobs), progress=not args.no_progress)
        for index, outcome in outcomes:
            label = jobs[index].label
            try:
                if outcome.error is not None:
                    raise SinkError(outcome.error.message)
                assert outcome.page is not None
                sink.put(jobs[index].name, outcome.page)
                stored += 1
            except SinkError as exc:
                failed += 1
                tqdm.write(f"FAILED {label}: {exc}", file=sys.stderr)  # keeps the progress bar intact
    elapsed = time.perf_counter() - started
    print(f"collected {stored} of {len(jobs)} pages into {sink.description} in {elapsed:.1f}s ({failed} failed)")
    return 1 if failed else 0


# -- inputs ----------------------------------------------------------------------------------------


def _check_arguments(args: argparse.Namespace) -> None:
    """Refuse, before any page is read or rendered or the ``--out`` folder made, a ``--limit`` or
    ``--workers`` below 1, a ``--timeout`` that is not a positive number, a ``--cache`` that is a file,
    and a ``--url-base`` that is no web address with a host (Chromium would refuse every page at it, one
    by one)."""
    from sitewise.page import PageError, host_of
    from sitewise.urls import is_web_url

    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")
    if args.workers < 1:
        raise ValueError("--workers must be at least 1")
    check_timeout(args.timeout)
    if args.cache and Path(args.cache).expanduser().exists() and not Path(args.cache).expanduser().is_dir():
        raise ValueError(f"--cache {args.cache} is a file; give a folder")
    if args.url_base is None:
        return
    if not is_web_url(args.url_base) or any(character.isspace() for character in args.url_base):
        raise ValueError(f"--url-base must be an http(s) URL such as http://blog.example/, not {args.url_base!r}")
    try:
        host_of(args.url_base)
    except PageError as exc:
        raise ValueError(f"--url-base: {exc.reason}") from None


def check_timeout(seconds: float) -> None:
    """Refuse a ``--timeout`` that is not a positive number of seconds (``nan`` timed every page out)."""
    if not seconds > 0:
        raise ValueError(f"--timeout must be a positive number of seconds, not {seconds:g}")


def _jobs(args: argparse.Namespace) -> tuple[list[Job], list[str]]:
    """The pages to collect (at most ``--limit``; stored bytes are read only for those) and the
    manifest entries that cannot be collected."""
    limit = args.limit if args.limit is not None else sys.maxsize
    jobs: list[Job] = []
    problems: list[str] = []
    for given in args.inputs:
        if re.match(r"https?://", given, re.IGNORECASE):
            jobs.append(Job(given, given, given))
        else:
            jobs.extend(_file_jobs(Path(given), args.url_base))
    jobs = jobs[:limit]
    if args.manifest and len(jobs) < limit:
        manifest_jobs, problems = _manifest_jobs(args.manifest, limit - len(jobs))
        jobs.extend(manifest_jobs)
    return _distinct_names(jobs), problems


def _distinct_names(jobs: list[Job]) -> list[Job]:
    """The jobs, each named for a file of its own (``--out``): a job whose file an earlier one takes
    (``a.html`` and ``a.htm``, two folders' ``index.html``) gets a short hash of its label added: its page
    used to overwrite the earlier one's file."""
    taken: set[str] = set()
    distinct = []
    for job in jobs:
        if file_name(job.name) in taken:
            job = replace(job, name=f"{job.name}-{_short_hash(job.label)}")
        taken.add(file_name(job.name))
        distinct.append(job)
    return distinct


def _file_jobs(path: Path, url_base: str | None) -> list[Job]:
    from sitewise.collect import StoredPage

    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in HTML_SUFFIXES and p.is_file())
        root = path
    elif path.is_file():
        files, root = [path], path.parent
    else:
        raise FileNotFoundError(f"no such file, folder or URL: {path}")
    jobs = []
    for file in files:
        relative = file.relative_to(root).as_posix()
        url = url_base.rstrip("/") + "/" + relative if url_base else file.resolve().as_uri()
        jobs.append(Job(str(file), StoredPage(url, file.read_bytes()), relative.rsplit(".", 1)[0]))
    return jobs


def _manifest_jobs(manifest: str, limit: int) -> tuple[list[Job], list[str]]:
    from sitewise.collect import StoredPage, stored_url
    from sitewise.manifest import read_manifest

    jobs: list[Job] = []
    problems: list[str] = []
    for entry in read_manifest(manifest):
        if len(jobs) >= limit:
            break
        body = entry.html_bytes()
        if body is None:
            problems.append(f"{entry.id}: no stored HTML (a pre-rendered page: use sitewise import-spider)")
            continue
        item = StoredPage(stored_url(entry.url, entry.site, entry.id), body, _content_type(entry.raw))
        jobs.append(Job(entry.id, item, entry.id))
    return jobs, problems


def _content_type(raw: dict[str, Any]) -> str:
    """text/html, with the charset the manifest knows (sets mark unknown ones 'unset' or 'unknown-…')."""
    encoding = str(raw.get("encoding") or "").strip().lower()
    if not encoding or encoding in ("unset", "none") or encoding.startswith("unknown"):
        return "text/html"
    return f"text/html; charset={encoding}"


# -- outputs ---------------------------------------------------------------------------------------


class SinkError(Exception):
    """A collected page could not be written or uploaded."""


class Sink(Protocol):
    description: str

    def put(self, name: str, page: "Page") -> None: ...


def _sink(args: argparse.Namespace) -> Sink:
    if args.out:
        return FileSink(Path(args.out))
    if args.server:
        return ServerSink(args.server, os.environ.get("SITEWISE_ADMIN_TOKEN", ""))
    return StoreSink()


class FileSink:
    """One ``<name>.json`` per page in a folder (names made file-safe; URLs get a short hash)."""

    def __init__(self, folder: Path) -> None:
        from .output import output_folder

        self.folder = output_folder(folder)
        self.description = str(folder)

    def put(self, name: str, page: "Page") -> None:
        from .output import write_whole

        path = self.folder / f"{file_name(name)}.json"
        try:
            write_whole(path, json.dumps(page.to_dict(), ensure_ascii=False))
        except OSError as exc:
            raise SinkError(f"cannot write {path}: {exc.strerror}") from None


def file_name(name: str) -> str:
    """A file-safe name: ``dragnet/14`` → ``dragnet_14``; a URL keeps a readable part plus 8 hex
    digits of its hash, so distinct URLs never share a file."""
    if re.match(r"[a-z]+://", name, re.IGNORECASE):
        readable = _UNSAFE_NAME.sub("_", name.split("://", 1)[1]).strip("_")[:80]
        return f"{readable}-{_short_hash(name)}"
    return _UNSAFE_NAME.sub("_", name).strip("_") or "page"


def _short_hash(text: str) -> str:
    """8 hex digits of the text's hash: enough to tell a run's pages apart in their file names."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


class ServerSink:
    """POST each page, gzip-compressed JSON, to ``<server>/api/pages``; waits and retries when the
    server asks to (429 too many requests, 503 store unavailable), honouring Retry-After.

    With ``SITEWISE_ADMIN_TOKEN`` set, uploads carry it: the operator's crawl is trusted by the server
    (no per-client quotas, no contributor share cap when learning)."""

    def __init__(self, server: str, admin_token: str = "") -> None:
        self.endpoint = server.rstrip("/") + "/api/pages"
        self.description = self.endpoint
        self.headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        if admin_token:
            self.headers["Authorization"] = f"Bearer {admin_token}"

    def put(self, name: str, page: "Page") -> None:
        body = gzip.compress(json.dumps(page.to_dict(), ensure_ascii=False).encode("utf-8"))
        for attempt in range(UPLOAD_RETRIES + 1):
            request = urllib.request.Request(
                self.endpoint,
                data=body,
                method="POST",
                headers=self.headers,
            )
            try:
                with urllib.request.urlopen(request, timeout=UPLOAD_TIMEOUT_S) as response:
                    response.read()
                    return
            except urllib.error.HTTPError as exc:
                if exc.code in RETRIED_STATUSES and attempt < UPLOAD_RETRIES:
                    time.sleep(_retry_after(exc.headers.get("Retry-After"), attempt))
                    continue
                raise SinkError(f"server answered {exc.code}: {_error_text(exc)}") from None
            except (urllib.error.URLError, OSError) as exc:
                raise SinkError(f"cannot reach {self.endpoint}: {getattr(exc, 'reason', exc)}") from None
        raise SinkError(f"server still refused after {UPLOAD_RETRIES} retries")


def _retry_after(header: str | None, attempt: int) -> float:
    try:
        return max(0.5, float(header or ""))
    except ValueError:
        return 2.0 ** attempt  # no usable hint: back off


def _error_text(exc: urllib.error.HTTPError) -> str:
    """The server's own message (``{"error", "message", "field"?}``) when it sent one, else the reason."""
    try:
        data = json.loads(exc.read().decode("utf-8", "replace"))
    except (ValueError, OSError):
        return str(exc.reason)
    if not isinstance(data, dict) or "message" not in data:
        return str(exc.reason)
    field = f" ({data['field']})" if data.get("field") else ""
    return f"{data['message']}{field}"


class StoreSink:
    """The store the configuration names (``REDIS_URL`` or the embedded Redis)."""

    def __init__(self) -> None:
        from sitewise.store import open_store

        self.store = open_store()
        self.description = "the store"

    def put(self, name: str, page: "Page") -> None:
        self.store.put_page(page)
