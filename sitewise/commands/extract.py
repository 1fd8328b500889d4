"""``sitewise extract SOURCE…``: the article of pages — saved HTML files, live URLs, stdin — by their site's
rules when learned, else by the fallback; as text, JSON, Markdown or HTML (:func:`sitewise.extract`'s formats).

One input: the article on stdout, the method on stderr. Several: one JSON object a line, in input order,
extracted in parallel over a process pool, with a progress bar on stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from ..api import OUTPUTS, Formatting, favor_of, load_rules, site_for
from .collect import check_timeout
from .output import output_folder, write_whole

if TYPE_CHECKING:
    from ..page import Page

#: The source that means standard input.
STDIN = "-"
#: A saved file may be named by its URL (``file:///home/me/page.html``), as a browser shows it.
FILE_URL = "file://"
#: Pages handed to a worker process at a time: enough to keep the pool's round trips cheap, few enough
#: that the progress bar and the output move steadily.
CHUNK_PAGES = 4
#: A lone surrogate: what ``os.fsdecode`` keeps of a file name's byte that is no UTF-8 (0xFF is U+DCFF).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def register(subparsers: argparse._SubParsersAction) -> None:
    from ..collect import DEFAULT_TIMEOUT_S

    parser = subparsers.add_parser(
        "extract",
        help="print pages' article (rules when their site is learned, else the fallback)",
        description="Extract the article of saved HTML files, live URLs or stdin (-). A URL is rendered in "
        "headless Chromium; a file is read as HTML (give --url so its site's rules can apply, or --render to "
        "render it offline first). Rules come from --rules FILE, --server URL, or else the store. One input: "
        "the article on stdout, how it was found on stderr. Several: one JSON object a line, in input order.",
    )
    parser.add_argument("sources", nargs="*", metavar="SOURCE", help="http(s) URLs, saved HTML files (paths or file:// URLs), or - for stdin")
    parser.add_argument("--from-list", type=Path, metavar="FILE", help="a file of sources, one a line (# comments)")
    parser.add_argument("--output", choices=OUTPUTS, default="text", help="text (default), json, markdown or html (an <article> fragment for a reader view)")
    parser.add_argument("--json", action="store_true", help="the same as --output json")
    parser.add_argument("--url", help="the URL a single saved file or stdin came from (decides its site)")
    parser.add_argument("--render", action="store_true", help="render saved files in Chromium (network blocked)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S",
                        help=f"seconds allowed to render each URL or --render file (default {DEFAULT_TIMEOUT_S:g})")
    rules = parser.add_mutually_exclusive_group()
    rules.add_argument("--rules", type=Path, metavar="FILE", help="a rule set JSON file to use instead of the store's")
    rules.add_argument("--server", metavar="URL", help="take each site's rules from this sitewise server")
    rules.add_argument("--no-store", action="store_true", help="do not look up sites' rules in the store")
    parser.add_argument("--mss-model", help="MSS model file (default: configured or shipped, else the baseline)")
    parser.add_argument("--include-comments", action="store_true",
                        help="the fallback keeps an article's comment thread when it scores as content")
    parser.add_argument("--include-links", action="store_true",
                        help="markdown and html keep the article's links (resolved against the page's URL)")
    parser.add_argument("--include-images", action="store_true",
                        help="markdown and html keep the article's images (resolved against the page's URL)")
    parser.add_argument("--include-formatting", action="store_true",
                        help="markdown and html mark the article's bold, italic, struck-through and code words")
    parser.add_argument("--with-metadata", action="store_true",
                        help="text and markdown open with the page's title, author, date... as YAML front "
                             "matter; html is a whole document with them in its head")
    favor = parser.add_mutually_exclusive_group()
    favor.add_argument("--favor-precision", action="store_true",
                       help="the fallback keeps only what it is surer of (less boilerplate, some text missed)")
    favor.add_argument("--favor-recall", action="store_true",
                       help="the fallback keeps more of what it is unsure of (less text missed, more boilerplate)")
    parser.add_argument("--out-dir", type=Path, metavar="DIR",
                        help="write each input's article to a file of its own in DIR (made if missing), named "
                             "after its source; stdout then gives one JSON line per input with the file's path")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: one per core)")
    parser.add_argument("--progress", action="store_true", help="show the progress bar even when stderr is no terminal")
    parser.set_defaults(handler=run, store_hint="without the store: --no-store, --rules FILE or --server URL")


@dataclass
class Task:
    """One input and what extracting it needs (all picklable: it goes to a worker process)."""

    source: str
    url: str | None
    rules: dict[str, Any] | None
    output: str
    mss_model: str | None
    body: bytes | None = None
    page: "Page | None" = None
    #: ``rules`` came from the store or server for this page's site (not from --rules)
    site_rules: bool = False
    include_comments: bool = False
    #: What the fallback's reading favours ("precision", "recall"; None: balanced).
    favor: str | None = None
    #: What text, Markdown and HTML hold beside the article's words.
    formatting: Formatting = field(default_factory=Formatting)
    #: Why the page could not be rendered (a URL that did not load), when it could not.
    render_error: str | None = None


def run(args: argparse.Namespace) -> int:
    output = "json" if args.json else args.output
    sources = [_local_name(source) for source in list(args.sources) + (_read_list(args.from_list) if args.from_list else [])]
    if not sources:
        raise ValueError("give at least one SOURCE (a URL, a file, or - for stdin) or --from-list FILE")
    if args.jobs < 1:
        raise ValueError("--jobs must be at least 1")
    check_timeout(args.timeout)
    if args.url and len(sources) > 1:
        raise ValueError("--url names the address of one saved file; give one SOURCE with it")
    if args.out_dir is not None:
        output_folder(args.out_dir, "--out-dir")
    ignored = [flag for flag, asked in (("--include-links", args.include_links), ("--include-images", args.include_images),
                                        ("--include-formatting", args.include_formatting)) if asked]
    if ignored and output not in ("markdown", "html"):
        names = " and ".join([", ".join(ignored[:-1]), ignored[-1]] if len(ignored) > 1 else ignored)
        print(f"sitewise extract: {names} {'change' if len(ignored) > 1 else 'changes'} only --output markdown and "
              f"html; the {output} output is the article's words alone", file=sys.stderr)
    tasks = [_task(source, args, output) for source in sources]  # every file checked before any work
    given = load_rules(args.rules) if args.rules else None  # a bad rules file fails before any page is read
    _render(tasks, args)
    _attach_rules(tasks, args, given)
    if len(tasks) == 1 and args.out_dir is None:
        return _print_one(_extract(tasks[0]), output, rules_given=tasks[0].rules is not None)
    return _print_lines(_extract_all(tasks, args), len(tasks), args)


# -- inputs ------------------------------------------------------------------------------------------------


def _read_list(path: Path) -> list[str]:
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _local_name(source: str) -> str:
    """A source as it is read: a saved file's ``file://`` URL (a browser's address for it) as its path."""
    if not source.startswith(FILE_URL):
        return source
    from urllib.parse import urlsplit
    from urllib.request import url2pathname

    parts = urlsplit(source)
    if parts.netloc not in ("", "localhost"):
        raise ValueError(f"{source} is a file on another machine ({parts.netloc}); give a local file")
    return url2pathname(parts.path)


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def _task(source: str, args: argparse.Namespace, output: str) -> Task:
    task = Task(source, args.url, None, output, args.mss_model, include_comments=args.include_comments,
                favor=favor_of(args.favor_precision, args.favor_recall),
                formatting=Formatting(**{option.name: getattr(args, option.name) for option in fields(Formatting)}))
    if _is_url(source):
        task.url = source
    elif source == STDIN:
        task.body = sys.stdin.buffer.read()
    else:
        path = Path(source)
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a folder: give its files ({path / '*.html'}) or --from-list FILE")
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
        task.url = task.url or path.resolve().as_uri()
    site_for(task.url)  # a malformed address (of a source or --url) fails before any page is rendered
    return task


def _attach_rules(tasks: list[Task], args: argparse.Namespace, given: dict[str, Any] | None) -> None:
    """Each task's rule set (``given``: the --rules file's), looked up once per site (here, not in the
    workers: the store and server are asked once). A rendered URL's site is where its address ended up:
    a short link's or an old address's redirect leads to another site, whose rules are the page's."""
    by_site: dict[str | None, dict[str, Any] | None] = {}
    store = None
    for task in tasks:
        site = site_for(task.url)
        if site not in by_site:
            if args.rules:
                by_site[site] = given
            elif site in (None, "local") or args.no_store:
                by_site[site] = None
            elif args.server:
                by_site[site] = load_rules(args.server, site)
            else:
                if store is None:
                    from ..store import open_store

                    store = open_store()
                by_site[site] = load_rules(store, site)
        task.rules, task.site_rules = by_site[site], not args.rules


def _render(tasks: list[Task], args: argparse.Namespace) -> None:
    """URLs, and files with --render, through one headless Chromium, several at once: each task gets its
    collected page, or why it has none (an input that failed, as a file that cannot be read)."""
    wanted = [t for t in tasks if _is_url(t.source) or (args.render and t.source != STDIN)]
    if not wanted:
        return
    from ..collect import Collector, StoredPage

    items = [task.source if _is_url(task.source) else StoredPage(str(task.url), Path(task.source).read_bytes())
             for task in wanted]
    with Collector(workers=min(args.jobs, len(wanted)), timeout_s=args.timeout, include_html=True) as collector:
        outcomes = collector.run_many(items, progress=False)
    for task, outcome in zip(wanted, outcomes):
        if outcome.error is not None:
            task.render_error = outcome.error.message
            continue
        task.page = outcome.page
        if _is_url(task.source):
            task.url = outcome.page.url  # where it ended up, after redirects


# -- extraction ----------------------------------------------------------------------------------------------


def _extract(task: Task) -> dict[str, Any]:
    """One task's answer: ``source``, ``url``, the JSON fields, and for text, Markdown and HTML ``output`` (what
    --output prints) — or ``source`` and ``error``."""
    from ..api import InputError, extract_article, formatted, readable_html
    from ..pipeline import rebuild_html

    if task.render_error is not None:
        return {"source": task.source, "error": task.render_error}
    try:
        if task.page is not None:
            source = task.page.html or rebuild_html(task.page)
        else:
            source = task.body if task.body is not None else Path(task.source).read_bytes()
        html = readable_html(source)
        found = extract_article(html, task.url, rules=task.rules, page=task.page, mss_model=task.mss_model,
                                metadata=task.formatting.reads_metadata(task.output), site_rules=task.site_rules,
                                include_comments=task.include_comments, favor=task.favor)
    except (InputError, OSError) as exc:
        return {"source": task.source, "error": str(exc)}
    answer = {"source": task.source, **found.to_json()}
    if task.output != "json":  # JSON prints the answer itself
        answer["output"] = formatted(found, html, task.output, task.formatting)
    return answer


def _extract_all(tasks: list[Task], args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """Answers in input order, from a process pool when there is more than one job."""
    jobs = min(args.jobs, len(tasks))
    if jobs == 1:
        yield from map(_extract, tasks)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: workers start at once with sitewise already imported (spawn would re-import it in each)
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        yield from pool.map(_extract, tasks, chunksize=CHUNK_PAGES)


# -- output ------------------------------------------------------------------------------------------------


def _print_one(answer: dict[str, Any], output: str, *, rules_given: bool) -> int:
    if "error" in answer:  # an input that was read but is no page: it failed (1), the arguments were right
        print(f"sitewise extract: error: {answer['source']}: {answer['error']}", file=sys.stderr)
        return 1
    if output == "json":
        print(_json_text(answer, indent=2))
    else:
        print(answer["output"])
    print(f"sitewise extract: {_how(answer, rules_given)}; {answer['words']} words", file=sys.stderr)
    return 0 if answer["text"] else 1


def _print_lines(answers: Iterable[dict[str, Any]], total: int, args: argparse.Namespace) -> int:
    """One JSON object a line: the whole answer for --output json, else source, url, method and the text
    or Markdown (with --out-dir, source, url, method, words and the file the article was written to:
    :func:`_written`); an input that failed gives its source and error. Exit 1 when any failed or had no
    article."""
    from tqdm import tqdm

    output = "json" if args.json else args.output
    failed = 0
    with tqdm(total=total, unit="page", file=sys.stderr, disable=not (args.progress or sys.stderr.isatty())) as bar:
        for answer in answers:
            found = bool(answer.get("text"))
            if "error" not in answer:
                answer = _line(answer, output) if args.out_dir is None else _written(answer, output, args.out_dir)
            failed += "error" in answer or not found
            print(_json_text(answer), flush=True)
            bar.update()
    if failed:
        print(f"sitewise extract: {failed} of {total} inputs gave no article", file=sys.stderr)
    return 1 if failed else 0


def _json_text(answer: dict[str, Any], indent: int | None = None) -> str:
    """``answer`` as JSON that is always UTF-8: a lone surrogate (a file name's byte that is no UTF-8) is
    written as its ``\\u`` escape, not as the raw byte stdout would print. Python's ``json`` reads it back
    as the name ``os.fsencode`` turns into the file's bytes."""
    text = json.dumps(answer, ensure_ascii=False, indent=indent)
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


#: What a line of several inputs' output says of how each article was found (beside the article or its file).
LINE_KEYS = ("source", "url", "method", "template", "fallback_reason")
#: The file name extension of each output.
EXTENSIONS = {"text": ".txt", "json": ".json", "markdown": ".md", "html": ".html"}
#: A written file's name keeps at most this many characters of its source's (a URL's path may be long).
MAX_NAME_CHARS = 80
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def _written(answer: dict[str, Any], output: str, folder: Path) -> dict[str, Any]:
    """The answer's article written to its own file in ``folder`` (:func:`output_name`; none for a page
    without an article): the line then names the file instead of holding the article. Written whole or not
    at all (:func:`~.output.write_whole`), so a crash leaves no half-written article under the name."""
    line = {key: answer[key] for key in (*LINE_KEYS, "words")}
    if not answer["text"]:
        return {**line, "file": None}
    article = _json_text(answer, indent=2) if output == "json" else answer["output"]
    path = folder / output_name(answer["source"], output)
    try:
        write_whole(path, article + "\n", errors="surrogateescape")
    except OSError as exc:  # a full disk, a folder made read-only meanwhile: this input's line says so
        return {"source": answer["source"], "error": f"cannot write {path}: {exc.strerror or exc}"}
    return {**line, "file": str(path)}


def output_name(source: str, output: str) -> str:
    """A file name for a source's article: its URL's host and path, or its file's name, as letters, digits,
    ``.``, ``_`` and ``-``, cut to :data:`MAX_NAME_CHARS`, and a digest of the whole source (two sources
    whose names read alike get two files), then the output's extension (:data:`EXTENSIONS`)."""
    import hashlib

    if _is_url(source):
        readable = source.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0]
    else:
        readable = "stdin" if source == STDIN else Path(source).stem
    readable = _UNSAFE_NAME.sub("-", readable).strip(".-")[:MAX_NAME_CHARS].rstrip(".-") or "page"
    digest = hashlib.sha1(source.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{readable}-{digest}{EXTENSIONS[output]}"


def _line(answer: dict[str, Any], output: str) -> dict[str, Any]:
    if output == "json":
        return answer
    return {**{key: answer[key] for key in LINE_KEYS}, output: answer["output"]}


def _how(answer: dict[str, Any], rules_given: bool) -> str:
    """How the article was found: by rules (the page's site, the rules' version when they have one, the
    template) or the fallback (why). A page without a URL (stdin without --url) has no site to name or
    to look up rules for."""
    if answer["method"] == "rules":
        found = [f"site {answer['site']}" if answer["site"] is not None else "no --url, so no site"]
        if answer["rule_version"] is not None:
            found.append(f"version {answer['rule_version']}")
        return f"rules ({', '.join(found)}, template {answer['template']})"
    if answer["site"] is None and not rules_given:
        return "mss (no --url, so no site's rules were looked up)"
    return f"mss ({answer['fallback_reason']})"
