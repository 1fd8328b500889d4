"""sitewise as a Python library: :func:`extract` one page's article, :func:`learn` a site's rules.

Like trafilatura's ``extract(html, url=...)``, with what sitewise adds: a site's learned rules (a rule
set, a :class:`~sitewise.store.Store`, or a sitewise server) say where its article is; pages of sites
not learned are read by the fallback (Maximum Subsequence Segmentation). The decision between the two is
:func:`sitewise.pipeline.find_article`, the same the server and ``sitewise extract`` make.

Importing this module is cheap: the parser, the learner and the fallback load on first use.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Literal, Union

from .errors import InputError, SitewiseError
from .nesting import too_costly_to_parse
from .text import word_count

if TYPE_CHECKING:
    import urllib.error

    from .metadata import Metadata
    from .mss.blockmodel import Favor
    from .page import Page
    from .pipeline import Article
    from .store import Store

#: What :func:`extract` can return.
OUTPUTS = ("text", "json", "markdown", "html")
Output = Literal["text", "json", "markdown", "html"]
#: Where a site's rules can come from: a rule set (dict), a rule set JSON file, a store, or the base URL
#: of a sitewise server (``GET <server>/rules/<site>``).
RulesSource = Union[dict[str, Any], str, Path, "Store", None]

#: A page of more characters than this (or bytes before decoding) is refused unread: every page passes
#: through a few linear steps whatever it holds (decoding, the nesting scan, the parsers reading past its
#: scripts: 0.3 s for 19 MB of scripts around a short article on a shared 2-core machine), and its copies
#: take memory, so a caller handed 100 MB of something gets an answer at once. The largest real pages
#: seen (product pages that inline 5 MB of scripts) are a quarter of it.
MAX_HTML_CHARS = 20_000_000
#: Of those, at most this many outside the contents of its scripts and styles, which make its elements
#: and words: what the fallback's time grows with (on a shared 2-core machine: a real 5.3 MB page, 95 %
#: scripts and styles, 0.4 s; 4 MB of running text 1.3 s; 4 MB of nothing but <p>x</p>, 500,000 elements,
#: 20 s, some 40 µs each). The largest article pages seen stay under 2 MB of them.
MAX_MARKUP_CHARS = 5_000_000
#: The start tag of a script or style, whose contents a parser reads as raw text, not markup (on a
#: lower-cased page).
_RAW_TEXT_START = re.compile(r"<(script|style)\b[^>]*>")
#: A page whose first bytes hold this share of control characters (NUL, escape, ...) is not text.
MAX_CONTROL_SHARE = 0.1
#: ... judged on this many of its first characters.
SNIFF_CHARS = 4096
#: A sitewise server must answer a rules request within this many seconds.
SERVER_TIMEOUT_S = 10.0
#: The error code of a sitewise server's 404 for a site it has not learned (docs/api.md, GET /rules/<site>);
#: any other 404 is of an address that is no sitewise server's rules.
NOT_LEARNED = "not_learned"
#: At most this much of an error answer is read to find its code: sitewise's are a few hundred bytes.
MAX_ERROR_BODY_BYTES = 65_536
#: Control characters but the whitespace ones (tab, new line, carriage return, form feed).
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f]")
#: What no answer holds: the C0 control characters but tab and new line, DEL and the C1 controls. A page
#: may carry them (``&#27;[2J`` spells a terminal's escape sequence) though a browser shows none of them,
#: and printed to a terminal they would drive it.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class RulesUnavailable(SitewiseError):
    """A sitewise server asked for a site's rules did not answer (down, unreachable, an error), or the
    address answered as no sitewise server does (a 404 other than its ``not_learned``)."""


@dataclass
class Extracted:
    """One page's article and what the page says about itself (:meth:`to_json` is ``output="json"``)."""

    url: str | None
    site: str | None
    title: str | None
    #: The byline's name(s), from the page's metadata (several joined by "; ").
    author: str | None
    date: str | None
    language: str | None
    site_name: str | None
    description: str | None
    #: The picture the page gives for previews of it (absolute, http or https).
    image: str | None
    #: The article's heading (headline, byline, date line, standfirst) when it is told apart, else "".
    heading: str
    #: The article without its heading and media captions.
    body: str
    #: The whole article: heading and body, one block per line ("" when the page has no article).
    text: str
    #: ``rules`` (the site's learned rules) or ``mss`` (the fallback).
    method: str
    #: The rules' template that matched (rules only).
    template: str | None
    rule_version: int | None
    #: How far to trust the answer, 0 to 1. Rules: the rule set's confidence (how well it reproduced its
    #: own training pages). The fallback: its answer's estimated word F1, calibrated on pages its model
    #: never saw (:mod:`sitewise.mss.confidence`); None when it found nothing or its model has no estimate.
    confidence: float | None
    #: Why the fallback was used ("site not learned", "rules did not apply: ...", "rules disagreed with the
    #: fallback (...)"), "" for rules.
    fallback_reason: str
    #: Why nothing was found ("" when the article was).
    reason: str
    #: What the pipeline found, which the answer is read from: where the article is on the page (its
    #: blocks, the fallback's span, the rules' selectors), for the server to answer too. Not in the JSON.
    article: "Article" = field(repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The answer as ``output="json"`` gives it: its texts :func:`printable`, as every output's are."""
        answer = {name: printable(value) if isinstance(value, str) else value
                  for name, value in ((f.name, getattr(self, f.name)) for f in fields(self) if f.name != "article")}
        return {**answer, "words": word_count(answer["text"])}


# -- extract -----------------------------------------------------------------------------------------


def extract(
    html: str | bytes, url: str | None = None, *, rules: RulesSource = None, output: Output = "text",
    include_comments: bool = False, favor_precision: bool = False, favor_recall: bool = False,
    include_links: bool = False, include_images: bool = False, with_metadata: bool = False,
    include_formatting: bool = False,
) -> str:
    """The article of one page.

    ``html``: the page (``str``, or ``bytes`` decoded as a browser decodes them: by a BOM, else the
    ``<meta charset>``, else UTF-8, else windows-1252; :func:`sitewise.manifest.decode_html`).
    ``url``: where it came from: names its site, whose rules ``rules`` may then hold.
    ``rules``: a rule set (a dict as ``learn`` returns, or a path to its JSON file), a store, or a sitewise
    server's base URL (``http://host:8000``); the site's rules are used when they fit the page, the
    fallback otherwise. ``output``: ``"text"`` (the article, one block per line), ``"markdown"``
    (headings, lists, quotes, code and data tables kept), ``"html"`` (the same as an ``<article>``
    fragment of clean, escaped HTML, for a reader view) or ``"json"`` (a JSON object: the text, heading
    and body, the page's title, author, date and language, and how it was found: method, template,
    confidence).
    ``include_comments``: the fallback judges an article's comment thread like any other text instead
    of leaving it out (as trafilatura's option of that name; a site's rules select what they learned).
    ``favor_precision`` / ``favor_recall`` (as trafilatura's): the fallback keeps only what it is surer of,
    or more of what it is unsure of (one of the two at most; a site's rules select what they learned).
    ``include_links`` (as trafilatura's): Markdown and HTML keep the article's links, each to its address
    resolved against ``url`` (the web's and e-mail's; text and JSON are the words alone either way).
    ``include_images`` (as trafilatura's): Markdown and HTML keep the article's images, each with its
    address (the web's, resolved against ``url``) and alternative text: those inside its lines and those
    between two of its lines with at most a caption and credit left out (:func:`sitewise.structure.article_blocks`).
    ``with_metadata`` (as trafilatura's): text and Markdown open with the page's metadata as YAML front
    matter (title, author, date, url, site name, description, image, language: those it has), and HTML is a
    whole document with them in its head (JSON holds them always).
    ``include_formatting`` (as trafilatura's): Markdown and HTML mark the article's bold, italic,
    struck-through and code words (``**``/``<strong>``, ``*``/``<em>``, ``~~``/``<del>``, backticks/``<code>``).

    A page without an article gives ``""`` (text, Markdown, HTML) or a JSON object whose ``text`` is ``""`` and
    whose ``reason`` says why. Raises :class:`InputError` for input that is not a readable page and
    :class:`RulesUnavailable` when a server asked for rules does not answer.
    """
    if output not in OUTPUTS:
        raise InputError(f"output must be one of {', '.join(OUTPUTS)}, not {output!r}")
    favor = favor_of(favor_precision, favor_recall)
    page_html = readable_html(html)
    formatting = Formatting(include_links, include_images, with_metadata, include_formatting)
    found = extract_article(page_html, url, rules=rules, metadata=formatting.reads_metadata(output),
                            include_comments=include_comments, favor=favor)
    return formatted(found, page_html, output, formatting)


def favor_of(favor_precision: bool, favor_recall: bool) -> Favor:
    """What the fallback's reading favours, from :func:`extract`'s two flags: "precision", "recall" or
    None (balanced); :class:`InputError` for both."""
    if favor_precision and favor_recall:
        raise InputError("favor_precision and favor_recall ask for opposite readings: give one at most")
    return "precision" if favor_precision else "recall" if favor_recall else None


def extract_article(
    page_html: str | None,
    url: str | None = None,
    *,
    rules: RulesSource = None,
    page: "Page | None" = None,
    mss_model: str | None = None,
    metadata: bool = True,
    site_rules: bool = False,
    include_comments: bool = False,
    favor: Favor = None,
) -> Extracted:
    """:func:`extract`'s answer before it is formatted. ``page_html``: the page as :func:`readable_html`
    gives it (checked and decoded once, by the caller, who formats the answer from it too), or None with a
    ``page``; ``page``: the page as collected (its blocks let rules apply to what the reader saw; without
    ``page_html`` the fallback and the metadata read its HTML, else its blocks and what it carries:
    :func:`_page_metadata`); ``mss_model``: a fallback model file instead of the configured one;
    ``metadata``: False leaves the page's title, author, date, language, site name and description
    unread (None), and the heading unsplit from the body;
    ``site_rules``: ``rules`` is the rule set a store or server gave for this page's site (already
    checked, and the site's own even when an administrator joined its domain to another);
    ``include_comments``: as for :func:`extract`; ``favor``: "precision" or "recall" (:func:`favor_of`)."""
    from .metadata import Metadata
    from .pipeline import find_article

    site = site_for(url)
    rule_set, mismatch = (rules, "") if site_rules else _rules_for(rules, site)
    article = find_article(page, page_html, rule_set, mss_model=mss_model, url=url, include_comments=include_comments,
                           favor=favor)
    if mismatch and article.method == "mss":
        article.fallback_reason = mismatch
    found_metadata = _page_metadata(page_html, page, url) if metadata else Metadata()
    heading, body = article.heading_and_body(found_metadata.title)
    return Extracted(
        url=url,
        site=site,
        **found_metadata.to_json(),
        heading=heading,
        body=body,
        text=article.text,
        method=article.method,
        template=article.template,
        rule_version=article.rule_version,
        confidence=rule_set.get("confidence") if rule_set is not None and article.method == "rules" else article.confidence,
        fallback_reason=article.fallback_reason if article.method == "mss" else "",
        reason="" if article.text else (article.reason or "no article found"),
        article=article,
    )


def _page_metadata(page_html: str | None, page: "Page | None" = None, url: str | None = None) -> "Metadata":
    """A page's title, author, date, language, site name and description: read from its HTML (the one
    given, else the collected page's) and its ``url``, else what the collected page carries
    (:func:`sitewise.metadata.collected_metadata`): a reader's upload may come without HTML."""
    from .metadata import Metadata, collected_metadata, read_metadata

    html = page_html or (page.html if page is not None else None)
    if html:
        return read_metadata(html, url)
    return collected_metadata(page) if page is not None else Metadata()


@dataclass(frozen=True)
class Formatting:
    """What the Markdown, HTML and text outputs hold beside the article's words (trafilatura's options of
    the same names): its links, images and inline marks (Markdown and HTML), and the page's metadata (all
    three)."""

    include_links: bool = False
    include_images: bool = False
    with_metadata: bool = False
    #: Bold, italic, struck-through and code words, marked (Markdown and HTML).
    include_formatting: bool = False

    def reads_metadata(self, output: Output) -> bool:
        """Whether ``output`` holds the page's metadata (a second parse of the page): JSON always, the
        others with :attr:`with_metadata`."""
        return output == "json" or self.with_metadata


#: The page's metadata an output given ``with_metadata`` opens with, in this order (the JSON output's
#: fields of the same names).
METADATA_FIELDS = ("title", "author", "date", "url", "site_name", "description", "image", "language")


#: How a document's head names the metadata fields it gives as ``<meta>``: HTML's standard names, and
#: Open Graph's where HTML has none (as link previews read them).
HEAD_META = {"author": 'name="author"', "date": 'name="date"', "site_name": 'property="og:site_name"',
             "description": 'name="description"', "image": 'property="og:image"'}


def formatted(found: Extracted, html: str, output: Output, formatting: Formatting = Formatting()) -> str:
    """An answer as ``output`` asks (``html``: the page it is of, whose elements Markdown and HTML read),
    with what ``formatting`` adds: links and images resolved against the answer's URL; and the page's
    metadata (:data:`METADATA_FIELDS`, those it has) as YAML front matter before text and Markdown, and as
    an HTML document's ``<title>`` and ``<meta>`` elements around the ``<article>``. No article is "",
    metadata or not."""
    if output == "json":
        return json.dumps(found.to_json(), ensure_ascii=False)
    if output == "markdown":
        from .markdown import to_markdown

        article = to_markdown(found.text, html, formatting.include_links, found.url,
                              images=formatting.include_images, marks=formatting.include_formatting)
    elif output == "html":
        from .article_html import to_html

        article = to_html(found.text, html, formatting.include_links, found.url,
                          images=formatting.include_images, marks=formatting.include_formatting)
    else:
        article = found.text
    if formatting.with_metadata and article:
        known = {name: value for name in METADATA_FIELDS if (value := getattr(found, name))}
        article = _html_document(known, article) if output == "html" else _front_matter(known) + article
    return printable(article)


def _front_matter(known: dict[str, str]) -> str:
    """YAML front matter (as static site generators and note-taking apps read it), each value a JSON
    string: every JSON string is a YAML double-quoted scalar, its escapes YAML's own."""
    lines = [f"{name}: {json.dumps(value, ensure_ascii=False)}" for name, value in known.items()]
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n\n"


def _html_document(known: dict[str, str], article: str) -> str:
    """The article fragment as a document whose head holds the metadata: ``<title>``, ``lang``, the URL
    as the canonical link and a ``<meta>`` for each other field (:data:`HEAD_META`)."""
    from html import escape

    head = ['<meta charset="utf-8">']
    if "title" in known:
        head.append(f"<title>{escape(known['title'], quote=False)}</title>")
    if "url" in known:
        head.append(f'<link rel="canonical" href="{escape(known["url"])}">')
    head += [f'<meta {HEAD_META[name]} content="{escape(value)}">' for name, value in known.items() if name in HEAD_META]
    language = f' lang="{escape(known["language"])}"' if "language" in known else ""
    return (f"<!DOCTYPE html>\n<html{language}>\n<head>\n" + "\n".join(head) + "\n</head>\n<body>\n"
            + article + "\n</body>\n</html>")


def printable(text: str) -> str:
    """``text`` without the control characters no reader's text holds (:data:`_UNPRINTABLE`). Applied as
    an answer is given (text, Markdown, HTML, JSON), not to what the pipeline found: Markdown looks the page's
    lines up by the text as found."""
    return _UNPRINTABLE.sub("", text)


def readable_html(html: str | bytes) -> str:
    """The page as text, or :class:`InputError` saying why it is not one (empty, binary, too large)."""
    if not isinstance(html, (str, bytes, bytearray)):
        raise TypeError(f"html must be str or bytes, not {type(html).__name__}")
    _check_size(len(html))
    if isinstance(html, str):
        text = _without_lone_surrogates(html)
    else:
        from .manifest import decode_html

        text = decode_html(bytes(html))  # decoded before the binary check: a UTF-16 page's bytes are half NULs
    _check_not_binary(text[:SNIFF_CHARS])
    if not text or text.isspace():  # (not text.strip(): that copies the page to find out)
        raise InputError("the page is empty")
    if len(text) > MAX_MARKUP_CHARS:  # (only a page this large can hold too much markup)
        _check_markup_size(markup_chars(text))
    refusal = too_costly_to_parse(text)
    if refusal:
        raise InputError(refusal)
    return text


def _without_lone_surrogates(html: str) -> str:
    """``html`` with each lone surrogate (from a mis-decoded file) replaced by "?": they cannot reach the
    parser, which reads UTF-8. Most pages have none, and are returned as they are once encoding them
    succeeds (half the cost of always encoding and decoding)."""
    try:
        html.encode("utf-8")
    except UnicodeEncodeError:
        return html.encode("utf-8", errors="replace").decode("utf-8")
    return html


def _check_size(size: int) -> None:
    if size > MAX_HTML_CHARS:
        raise InputError(f"the page has {size:,} characters; at most {MAX_HTML_CHARS:,} are read")


def _check_markup_size(size: int) -> None:
    if size > MAX_MARKUP_CHARS:
        raise InputError(f"the page has {size:,} characters outside its scripts and styles; at most "
                         f"{MAX_MARKUP_CHARS:,} are read")


def markup_chars(html: str) -> int:
    """How many of a page's characters lie outside the contents of its scripts and styles (an unclosed
    one runs to the end of the page, as a parser reads it)."""
    # one lower-cased copy, searched with str.find: a case-blind regular expression steps through the
    # page a character at a time, some 8 times slower
    lowered = html.lower()
    raw_text = 0
    position = 0
    while start := _RAW_TEXT_START.search(lowered, position):
        end = lowered.find(f"</{start.group(1)}", start.end())
        end = len(lowered) if end < 0 else end
        raw_text += end - start.end()
        position = end
    return len(lowered) - raw_text


def _check_not_binary(start: str) -> None:
    controls = len(_CONTROL.findall(start))
    if start and ("\0" in start or controls > MAX_CONTROL_SHARE * len(start)):
        raise InputError("the page is binary data, not HTML")


def site_for(url: str | None) -> str | None:
    """The site of a page's URL (None without one); :class:`InputError` for a URL that names none."""
    if url is None:
        return None
    if not isinstance(url, str):
        raise TypeError(f"url must be str or None, not {type(url).__name__}")
    from .page import PageError, site_of

    try:
        return site_of(url)
    except PageError as exc:
        raise InputError(f"url: {exc.reason}") from None


# -- rules -------------------------------------------------------------------------------------------


def _rules_for(source: RulesSource, site: str | None) -> tuple[dict[str, Any] | None, str]:
    """The rule set to try on a page of ``site``, and why none applies when the one given is another
    site's (the page then goes to the fallback)."""
    if source is None:
        return None, ""
    rules = load_rules(source, site)
    # A store or server answers for the page's site, under the name of the site an administrator may
    # have joined its domain to; a rule set handed in may be any site's.
    handed_in = isinstance(source, (dict, Path)) or (isinstance(source, str) and not _is_server(source))
    if handed_in and rules is not None and site not in (None, "local") and not _rules_cover(rules, site):
        return None, f"the rules are {rules['site']}'s, not {site}'s"
    return rules, ""


def _rules_cover(rules: dict[str, Any], site: str) -> bool:
    """Whether a rule set is of ``site``: one its pages came from (``sites_learned``: a set named ``news``
    learned from bbc.co.uk and bbc.com pages is of both), or the site its name is a host of
    (``www.Gazette.test`` is ``gazette.test``, ``bücher.de`` is ``xn--bcher-kva.de``; rule sets written by
    hand or before they listed their sites have only the name)."""
    from .page import PageError, site_of_host

    if site in rules.get("sites_learned", ()):
        return True
    try:
        return site_of_host(rules["site"]) == site
    except PageError:  # a name that is no host ("my rules ☃") covers no site by its name
        return False


def load_rules(source: RulesSource, site: str | None = None) -> dict[str, Any] | None:
    """A rule set from ``source``: a dict, a JSON file, a store or a server (these two need ``site``);
    None when the store or server has not learned the site. A file is read as UTF-8 (a byte order mark
    aside: editors write one into a hand-edited rule set). Raises :class:`InputError` for a rule set
    that breaks the format (``docs/rules.md``), :class:`RulesUnavailable` when the server does not answer."""
    if source is None:
        return None
    if isinstance(source, str) and _is_server(source):
        answer = _fetch_rules(source, _needed_site(site))
        return None if answer is None else _validated(answer, "rules")
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))  # a byte order mark, as Notepad saves it, aside
        except OSError as exc:
            raise InputError(f"cannot read rules file {path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise InputError(f"rules file {path} is not JSON: {exc}") from None
        except RecursionError:
            raise InputError(f"rules file {path} is no rule set: its JSON nests deeper than Python's parser goes") from None
        # (a file holding null is no rule set, not "no rules": that is only a store's or server's answer)
        return _validated(data, f"rules file {path}")
    if isinstance(source, dict):
        return _validated(source, "rules")
    if callable(getattr(source, "rules", None)):  # a Store (duck-typed: importing it loads redis)
        # the site an administrator joined this domain to, if any
        return source.rules(source.site_key(_needed_site(site)))
    raise InputError(f"rules must be a rule set, a JSON file, a store or a server URL, not {type(source).__name__}")


def _is_server(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def _needed_site(site: str | None) -> str:
    if site is None:
        raise InputError("give the page's url: the store or server is asked for its site's rules")
    return site


def _validated(data: Any, where: str) -> dict[str, Any]:
    """``data`` checked as a rule set; :class:`InputError` naming ``where`` it came from when it is none."""
    from .learn.rules import RulesError, validate_rules

    try:
        return validate_rules(data)
    except RulesError as exc:
        raise InputError(f"{where}: {exc}") from None


def _fetch_rules(server: str, site: str) -> dict[str, Any] | None:
    """``GET <server>/rules/<site>``: the rule set, or None when the server has not learned the site."""
    import urllib.error
    import urllib.parse
    import urllib.request

    url = f"{server.rstrip('/')}/rules/{urllib.parse.quote(site, safe='')}"
    try:
        with urllib.request.urlopen(url, timeout=SERVER_TIMEOUT_S) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        if _not_learned(exc):
            return None
        hint = f" (not a sitewise server's answer: is {server} its base URL?)" if exc.code == 404 else ""
        raise RulesUnavailable(f"{url}: HTTP {exc.code}{hint}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise RulesUnavailable(f"{url}: {getattr(exc, 'reason', exc)}") from None


def _not_learned(error: urllib.error.HTTPError) -> bool:
    """Whether an error answer is a sitewise server's "not learned yet": a 404 whose JSON body has the
    error code :data:`NOT_LEARNED`, not a 404 of a wrong address (another server, a mistyped path)."""
    if error.code != 404:
        return False
    try:
        body = json.loads(error.read(MAX_ERROR_BODY_BYTES))
    except (OSError, ValueError):
        return False
    return isinstance(body, dict) and body.get("error") == NOT_LEARNED


# -- learn -------------------------------------------------------------------------------------------


def learn(pages: Iterable["Page | dict[str, Any] | str | Path"], *, site: str | None = None) -> dict[str, Any]:
    """A site's rule set, learned from its collected pages (``sitewise collect`` or the bookmarklet
    record them: blocks with their CSS and boxes; HTML alone is not enough). ``pages``: :class:`Page`
    objects, page dicts (the JSON format of ``docs/api.md``) or paths to page JSON files; a handful
    (5 or more) is enough. They are learned as one site, whatever their hosts (``bbc.co.uk`` and
    ``bbc.com``), named ``site`` (by default the registrable domain most of them have), with a template
    per layout. Pass the result as :func:`extract`'s ``rules``: it applies to pages of the sites the pages
    came from (``sites_learned``) and of the site ``site`` is a host of. ``site`` is kept as a host is
    (``www.Gazette.test`` → ``gazette.test``).

    Raises :class:`InputError` when the pages cannot be learned from (none, broken, no article the
    learner can find) or ``site`` is empty, :class:`TypeError` when ``pages`` is one page or file name
    instead of an iterable of them.
    """
    from .learn.learner import LearnError, SiteLearner

    if isinstance(pages, (str, bytes, Path, dict)):
        raise TypeError(f"pages must be an iterable of pages (Page objects, page dicts or page files), "
                        f"not a {type(pages).__name__}: put one page in a list")
    name = site_name(site) if site is not None else None
    loaded = [_page(page) for page in pages]
    try:
        rules = SiteLearner().fit(loaded, site=name).rules_
    except LearnError as exc:
        raise InputError(f"cannot learn: {exc}") from None
    if not rules["templates"]:
        raise InputError("cannot learn: no page has an article body the learner can find")
    return rules


def site_name(name: str) -> str:
    """A name given to pages learned as one site, kept as a host is (``sitewise.page.canonical_host``):
    lower case, in punycode, without a trailing dot and a leading ``www.``; a URL names its host's site
    (``https://www.bbc.co.uk/news`` is ``bbc.co.uk``). Raises :class:`InputError` for an empty name, one
    IDNA refuses or one no host has (``bbc.co.uk/news``, a URL without its scheme; ``the bbc``): rules
    named so would apply to no page. TypeError for one not a string."""
    from .page import PageError, canonical_host, host_of, is_host_name

    if not isinstance(name, str):
        raise TypeError(f"site must be str or None, not {type(name).__name__}")
    try:
        kept = host_of(name) if "://" in name else canonical_host(name)
    except PageError as exc:
        raise InputError(f"site: {exc.reason}") from None
    if not kept:
        raise InputError("site: the name must not be empty")
    if not is_host_name(kept):
        raise InputError(f"site: {name[:100]!r} is neither a host name (bbc.co.uk) nor a URL (https://www.bbc.co.uk/news)")
    return kept


def _page(page: "Page | dict[str, Any] | str | Path") -> "Page":
    from .page import Page, PageError

    if isinstance(page, Page):
        return page
    if isinstance(page, dict):
        try:
            return Page.from_dict(page)
        except PageError as exc:
            raise InputError(f"page {page.get('url', '')!r}: {exc}") from None
    if isinstance(page, (str, Path)):
        from .spider_import import read_page_file

        try:
            return read_page_file(page)
        except PageError as exc:
            raise InputError(f"page file {page}: {exc}") from None
        except OSError as exc:
            raise InputError(f"cannot read page file {page}: {exc.strerror or exc}") from None
    raise InputError(f"a page must be a Page, a page dict or a page file, not {type(page).__name__}")
