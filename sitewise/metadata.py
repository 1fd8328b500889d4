"""A page's metadata — title, author, publication date, language, site name, description — read from
what publishers put in the HTML for search engines and social networks.

Each field is looked up in sources in order of how deliberately publishers fill them: schema.org
JSON-LD and Open Graph first (written for machines), then ``<meta>`` names, then the visible page
(``<title>``, ``<h1>``, ``<time>``, ``rel=author``). The first non-empty value wins; a field no source
gives is None. Only the HTML is read (never the network), or for a collected page without it what
the collector recorded of it (:func:`collected_metadata`).
"""
from __future__ import annotations

import datetime as _dt
import html as html_lib
import json
import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterator

from .mojibake import repair_mojibake

if TYPE_CHECKING:
    from .page import Page

#: schema.org types whose JSON-LD object describes the article itself (not the site or a breadcrumb).
ARTICLE_TYPES = frozenset(
    "Article NewsArticle BlogPosting Report ScholarlyArticle TechArticle AnalysisNewsArticle OpinionNewsArticle "
    "ReviewNewsArticle ReportageNewsArticle LiveBlogPosting SocialMediaPosting".split()
)
#: How JSON-LD may also spell a schema.org type: in full (``https://schema.org/NewsArticle``) or compacted
#: by the usual ``schema`` prefix (``schema:NewsArticle``).
_SCHEMA_PREFIX = re.compile(r"^(?:https?://schema\.org/|schema:)")
#: ``<meta name=...>`` names publishers use for the date (news CMSs, Dublin Core, Parse.ly, Sailthru).
DATE_META_NAMES = (
    "article:published_time", "datepublished", "date", "pubdate", "publishdate", "publish-date", "dc.date",
    "dc.date.issued", "dcterms.date", "dcterms.created", "parsely-pub-date", "sailthru.date", "og:published_time",
)
#: ... and for the author.
AUTHOR_META_NAMES = ("author", "article:author", "dc.creator", "dcterms.creator", "parsely-author", "sailthru.author", "byl")
#: A byline meta (NYT's ``byl``) often starts with this word.
_BY_PREFIX = re.compile(r"^\s*by\s+", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
#: The page's ``<title>``, not an inline SVG icon's (which names the icon: a page without a title of its
#: own, such as an article's HTML fragment, would be titled "Share").
_PAGE_TITLE = "title:not(svg title)"
#: An author value that is a profile URL (``article:author`` on Facebook's spec) names no one readable.
_URL = re.compile(r"^\w+://")


@dataclass
class Metadata:
    """What a page says about itself; None where it says nothing."""

    title: str | None = None
    author: str | None = None
    #: ISO 8601 when the page's value parses as one (``2024-05-01T09:30:00+00:00``), else as written.
    date: str | None = None
    #: A BCP 47 tag as the page declares it, ``_`` made ``-`` (``en``, ``en-GB``, ``pt-BR``).
    language: str | None = None
    site_name: str | None = None
    description: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return asdict(self)


def read_metadata(html: str) -> Metadata:
    """The metadata of a page's HTML (any HTML: a broken or empty page gives empty metadata)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    meta = _meta_values(tree)
    article = _json_ld_article(tree)
    return Metadata(
        title=_first(_ld_text(article.get("headline")), meta.get("og:title"), meta.get("twitter:title"),
                     _text(tree, _PAGE_TITLE), _text(tree, "h1")),
        author=_first(_ld_names(article.get("author")), *(_author(meta.get(name)) for name in AUTHOR_META_NAMES),
                      _text(tree, "[rel~=author]"), _text(tree, "[itemprop=author]")),
        date=_iso_date(_first(_ld_text(article.get("datePublished")), *(meta.get(name) for name in DATE_META_NAMES),
                              _attribute(tree, "[itemprop=datePublished]", "datetime", "content"),
                              _attribute(tree, "time[datetime]", "datetime"))),
        language=_language(_first(_attribute(tree, "html", "lang"), meta.get("content-language"),
                                  _ld_text(article.get("inLanguage")), meta.get("og:locale"))),
        site_name=_first(meta.get("og:site_name"), meta.get("application-name")),
        description=_first(meta.get("og:description"), meta.get("description"), meta.get("twitter:description"),
                           _ld_text(article.get("description"))),
    )


def collected_metadata(page: "Page") -> Metadata:
    """The metadata a collected page carries without its HTML: its first title (``document.title``) and
    description, and its language. Author, date and site name are only in the HTML: None."""
    return Metadata(title=_first(*page.titles), language=_language(_first(page.lang)),
                    description=_first(*page.descriptions))


# -- sources -----------------------------------------------------------------------------------------


def _meta_values(tree: Any) -> dict[str, str]:
    """``<meta>`` contents by lower-cased ``property``, ``name``, ``itemprop`` or ``http-equiv`` (the
    first of each name)."""
    values: dict[str, str] = {}
    for node in tree.css("meta[content]"):
        attributes = node.attributes
        content = _clean(attributes.get("content"))
        if not content:
            continue
        for key in ("property", "name", "itemprop", "http-equiv"):
            name = (attributes.get(key) or "").strip().lower()
            if name:
                values.setdefault(name, content)
    return values


def read_json_ld(text: str) -> Any:
    """The data of one JSON-LD script, or None when it cannot be read: broken JSON, or nesting deeper than
    Python's parser goes (``[`` × 3,000 raises RecursionError). It is page data, not the caller's input:
    a publisher's unreadable JSON-LD is skipped, never the reader's problem."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _json_ld_article(tree: Any) -> dict[str, Any]:
    """The page's JSON-LD object for the article (the first of an article type), or {}."""
    for node in tree.css('script[type="application/ld+json"]'):
        for item in _ld_objects(read_json_ld(node.text(deep=True) or "null")):
            types = item.get("@type")
            types = types if isinstance(types, list) else [types]
            if any(_SCHEMA_PREFIX.sub("", t) in ARTICLE_TYPES for t in types if isinstance(t, str)):
                return item
    return {}


def _ld_objects(data: Any) -> Iterator[dict[str, Any]]:
    """Every object in a JSON-LD document, ``@graph`` and lists flattened, each followed by its
    ``mainEntity`` (a ``WebPage`` holding the article; one level deep each)."""
    for item in _dicts(data):
        for entry in [item, *_dicts(item.get("@graph"))]:
            yield entry
            yield from _dicts(entry.get("mainEntity"))


def _dicts(value: Any) -> list[dict[str, Any]]:
    """A JSON-LD value's objects: the value when it is one, a list's that are."""
    return [item for item in (value if isinstance(value, list) else [value]) if isinstance(item, dict)]


def _ld_names(value: Any) -> str | None:
    """A JSON-LD ``author``: a name, a Person/Organization with ``name``, or a list of those."""
    values = value if isinstance(value, list) else [value]
    names = [_ld_text(v.get("name") if isinstance(v, dict) else v) for v in values]
    joined = ", ".join(name for name in names if name and not _URL.match(name))
    return joined or None


def _ld_text(value: Any) -> str | None:
    """A JSON-LD text value, its HTML entities decoded: a script's text is not HTML to the parser, yet
    publishers escape it as if it were (WordPress's Yoast writes ``Traveler&#8217;s Guide &amp; Tips``).
    Attribute values and element text come decoded from the parser and are not decoded twice."""
    if isinstance(value, dict):  # {"@type": "Language", "name": "English"}, {"@value": ...}
        value = value.get("@value", value.get("name"))
    return _clean(html_lib.unescape(value)) if isinstance(value, str) else None


def _text(tree: Any, selector: str) -> str | None:
    """The text of the first element ``selector`` selects that has any: the first may have none (a
    ``<link rel=author>`` in the head before the byline's link, a logo's ``<h1>`` holding an image)."""
    return _first(*(node.text(deep=True) for node in tree.css(selector)))


def _attribute(tree: Any, selector: str, *names: str) -> str | None:
    node = tree.css_first(selector)
    if node is None:
        return None
    return _first(*(node.attributes.get(name) for name in names))


# -- values ------------------------------------------------------------------------------------------


def _clean(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return _SPACES.sub(" ", repair_mojibake(value)).strip() or None


def _first(*values: Any) -> str | None:
    return next((cleaned for cleaned in map(_clean, values) if cleaned), None)


def _author(value: str | None) -> str | None:
    if not value or _URL.match(value):
        return None
    return _BY_PREFIX.sub("", value)


def _iso_date(value: str | None) -> str | None:
    """The date in ISO 8601 when Python reads it as such (``2024-05-01T09:30:00Z`` too), else as written.
    A date without a time stays one."""
    if value is None:
        return None
    for kind in (_dt.date, _dt.datetime):
        try:
            return kind.fromisoformat(value).isoformat()
        except ValueError:
            continue
    return value


def _language(value: str | None) -> str | None:
    """``en_US`` → ``en-US``; the first of a list (``de, en``)."""
    if value is None:
        return None
    first = value.replace("_", "-").split(",")[0].strip()
    return first or None
