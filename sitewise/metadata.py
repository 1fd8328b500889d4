"""A page's metadata — title, author, publication date, language, site name, description — read from
what publishers put in the HTML for search engines and social networks.

Each field is looked up in sources in order of how deliberately publishers fill them: schema.org
JSON-LD and Open Graph first (written for machines), then ``<meta>`` names, then the visible page
(``<title>``, ``<h1>``, ``<time>``, ``rel=author``, a ``byline``). The first value the field can hold
wins (a date that says no day passes to the next source); a field no source gives is None. The fields' rules are in
docs/api.md. Only the HTML and its URL are read (never the network), or for a collected page without
HTML what the collector recorded of it (:func:`collected_metadata`).
"""
from __future__ import annotations

import datetime as _dt
import email.utils
import html as html_lib
import json
import re
import urllib.parse
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .elements import COMMENT_NAME
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
#: A JSON-LD script longer than this is skipped unread: the largest of the 1,254 on the 4,980 pages of
#: the benchmarks' data sets holds 153,095 characters, and Python reads 18 MB of JSON in 1 to 2 s.
MAX_JSON_LD_CHARS = 1_000_000
#: A comma before a closing brace or bracket, which JavaScript takes and JSON does not.
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
#: XHTML's wrapping of a script's text, ``//<![CDATA[`` ... ``//]]>``.
_CDATA_START, _CDATA_END = "<![CDATA[", "]]>"
#: ``<meta>`` names of the picture a page gives for previews of it (Open Graph's, then Twitter's).
IMAGE_META_NAMES = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src")
#: ``<meta name=...>`` names publishers use for the date (news CMSs, Dublin Core, Parse.ly, Sailthru).
DATE_META_NAMES = (
    "article:published_time", "datepublished", "date", "pubdate", "publishdate", "publish-date", "dc.date",
    "dc.date.issued", "dcterms.date", "dcterms.created", "parsely-pub-date", "sailthru.date", "og:published_time",
)
#: A date as ISO 8601 writes a day (``2024-05-07``), with a time and a zone or without: Python's
#: ``fromisoformat`` reads more, which pages use for other things than a day (``2024-W19`` is a week,
#: ``20240507`` an id as well as a date). Its zone as pages also write it: after a space, or named UTC
#: (``2024-05-07 10:00:00 +02:00``, ``2024-05-07T10:00:00 UTC``).
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?(?:Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?))?)?",
                       re.IGNORECASE)
#: An ISO 8601 time's zone, as :data:`_ISO_DATE` takes it: UTC by a name, or an offset.
_ISO_ZONE = re.compile(r"\s?(?:(?P<utc>Z|UTC|GMT)|(?P<offset>[+-]\d{2}(?::?\d{2})?))$", re.IGNORECASE)
#: The names of the months (January first) as dates write them in English, German, French, Spanish,
#: Italian, Portuguese, Dutch, Swedish, Danish, Norwegian, Polish, Czech and Turkish, each month's forms
#: parted by spaces: its name, the case a date puts it in (Polish ``7 maja``, Czech ``7. května``), a
#: spelling without accents, an abbreviation that is no beginning of the name (``Mrz``, ``mrt``). Shipped
#: as data, not read from the process's locale (``strptime``'s ``%B`` reads the month in its language).
MONTH_NAMES = {
    "en": "january|february|march|april|may|june|july|august|september|october|november|december",
    "de": "januar jänner|februar feber|märz mrz|april|mai|juni|juli|august|september|oktober|november|dezember",
    "fr": "janvier|février fevrier|mars|avril|mai|juin|juillet|août aout|septembre|octobre|novembre|décembre decembre",
    "es": "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre setiembre|octubre|noviembre|diciembre",
    "it": "gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre",
    "pt": "janeiro|fevereiro|março marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro",
    "nl": "januari|februari|maart mrt|april|mei|juni|juli|augustus|september|oktober|november|december",
    "sv": "januari|februari|mars|april|maj|juni|juli|augusti|september|oktober|november|december",
    "da no": "januar|februar|marts mars|april|maj mai|juni|juli|august|september|oktober|november|desember december",
    "pl": "styczeń stycznia|luty lutego|marzec marca|kwiecień kwietnia|maj maja|czerwiec czerwca|lipiec lipca"
          "|sierpień sierpnia|wrzesień września|październik października|listopad listopada|grudzień grudnia",
    "cs": "leden ledna|únor února|březen března|duben dubna|květen května|červen června|červenec července"
          "|srpen srpna|září|říjen října|listopad listopadu|prosinec prosince",
    "tr": "ocak|şubat|mart|nisan|mayıs|haziran|temmuz|ağustos|eylül|ekim|kasım|aralık",
}
#: The names of the days of the week (Monday first) in the same languages, which a date may start with,
#: written as :data:`MONTH_NAMES` (with the two letters German and Dutch shorten them to: ``Di., 7. Mai``).
WEEKDAY_NAMES = {
    "en": "monday|tuesday|wednesday|thursday|friday|saturday|sunday",
    "de": "montag mo|dienstag di|mittwoch mi|donnerstag do|freitag fr|samstag sonnabend sa|sonntag so",
    "fr": "lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche",
    "es": "lunes|martes|miércoles|jueves|viernes|sábado|domingo",
    "it": "lunedì|martedì|mercoledì|giovedì|venerdì|sabato|domenica",
    "pt": "segunda-feira|terça-feira|quarta-feira|quinta-feira|sexta-feira|sábado|domingo",
    "nl": "maandag ma|dinsdag di|woensdag wo|donderdag do|vrijdag vr|zaterdag za|zondag zo",
    "sv": "måndag|tisdag|onsdag|torsdag|fredag|lördag|söndag",
    "da no": "mandag|tirsdag|onsdag|torsdag|fredag|lørdag|søndag",
    "pl": "poniedziałek|wtorek|środa|czwartek|piątek|sobota|niedziela",
    "cs": "pondělí|úterý|středa|čtvrtek|pátek|sobota|neděle",
    "tr": "pazartesi|salı|çarşamba|perşembe|cuma|cumartesi|pazar",
}
#: A name shortened to fewer letters than this is no abbreviation of one: ``Ma`` begins March and May,
#: ``On`` the Swedish Wednesday (``onsdag``) and the English preposition.
_MIN_ABBREVIATION = 3
#: A day written out, in the order a language writes it: the day first (``7 May 2024``, ``7. Mai 2024``,
#: ``7 de mayo de 2024``, ``7 janv. 2024``) or the month (``May 7, 2024``), after a day's name or not
#: (``Tuesday, May 7, 2024``, ``Di., 7. Mai 2024``), and before a time of day or not (``May 7, 2024 4:00
#: AM PDT``, ``7. Mai 2024 um 10:00 Uhr``, ``7 mai 2024 à 10h00``: the day is kept, the time left, as its
#: zone is a name that may mean several); an ordinal's ending is left out before.
_WORD = r"[^\W\d_][\w-]*"
_WEEKDAY_PART = rf"(?:(?P<weekday>{_WORD})\.?,?\s+)?"
_TIME_PART = (r"(?:\s*(?:,|at|um|à|a las|às|@|-|–|\|)?\s*@?\d{1,2}[:.h]\d{2}(?::\d{2})?(?:\s*[ap]\.?\s?m\.?)?(?:\s*uhr)?"
              r"(?:\s*(?:[a-z]{2,5}|[+-]\d{2}:?\d{2}))?)?")
_WRITTEN_DATES = (
    re.compile(rf"{_WEEKDAY_PART}(?P<day>\d{{1,2}})\.?\s+(?:de\s+)?(?P<month>{_WORD})\.?,?\s+(?:del?\s+)?(?P<year>\d{{4}})"
               rf"{_TIME_PART}", re.IGNORECASE),
    re.compile(rf"{_WEEKDAY_PART}(?P<month>{_WORD})\.?\s+(?P<day>\d{{1,2}}),?\s+(?P<year>\d{{4}}){_TIME_PART}",
               re.IGNORECASE),
)
#: A day with the year first (``2024/05/07``: no one writes year, day, month); ``05/07/2024`` says not
#: which month it means (7 May or 5 July).
_YEAR_FIRST_DATE = "%Y/%m/%d"
#: An ordinal's ending after a day's number (``May 7th, 2024``, ``21st March 2024``, French ``1er mai``,
#: Spanish and Portuguese ``1º de maio``).
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th|er|º)\b", re.IGNORECASE)
#: An RFC 2822 (e-mail, RSS, HTTP) date and time: ``Tue, 07 May 2024 10:00:00 GMT``.
_RFC_2822_DATE = re.compile(r"(?:[a-z]{3},\s*)?\d{1,2} [a-z]{3} \d{4} \d{2}:\d{2}\b.*", re.IGNORECASE)
#: The days a CMS writes for "no date": the zero time of Go and .NET, of Unix, of SQL Server.
_NO_DATE_DAYS = frozenset({_dt.date(1, 1, 1), _dt.date(1970, 1, 1), _dt.date(1900, 1, 1)})
#: No article is published later than today; a day of slack for the time zones ahead of this machine's.
_FUTURE_SLACK = _dt.timedelta(days=1)
#: A publication time may fall on the day after its URL's in UTC (an evening story west of Greenwich).
_URL_DAY_SLACK = _dt.timedelta(days=1)
#: A day in a URL's path, as CMSs route articles: ``/news/2024/05/07/strike-ends``.
_URL_DATE = re.compile(r"/(\d{4})/(\d{1,2})/(\d{1,2})(?:/|$)")
#: The ``<time>`` elements that date the article: HTML 4's ``pubdate`` one, those in its ``<article>``
#: (not in a box of related links there).
_ARTICLE_TIME = "time[pubdate], article time:not(aside time)"
#: ... and for the author.
AUTHOR_META_NAMES = ("author", "article:author", "dc.creator", "dcterms.creator", "parsely-author", "sailthru.author", "byl")
#: Several authors' names are joined by this, as trafilatura joins them (a comma would part the names
#: Dublin Core writes surname first: "Doe, Jane").
AUTHOR_SEPARATOR = "; "
#: An author value longer than this is no byline (a bio, the page's text in the wrong field): a
#: handful of names fits in it.
MAX_AUTHOR_CHARS = 200
#: A byline names a handful of authors; a longer list is a paper's or a report's, whose first names are
#: kept (as a citation's "et al." keeps them) and the field stays a byline.
MAX_AUTHORS = 10
#: What parts the names in one byline value (``Jane Doe and John Roe``, ``JANE DOE;JOHN ROE``): ``and`` in
#: English, German, French, Spanish, Italian and Portuguese, lower case only (``Jane E Doe`` has an initial).
_AUTHORS_SEPARATOR = re.compile(r"\s*;\s*|\s+(?:and|&|und|et|y|e)\s+")
#: schema.org's type of an author that is a person (a publisher may be one: a personal blog's).
_PERSON = "Person"
#: The parts of a schema.org Person's name, in the order a byline writes them, for a Person without a ``name``.
_PERSON_NAME_PARTS = ("givenName", "additionalName", "familyName")
#: A byline (NYT's ``byl`` meta, a byline's text) often starts with this word, and a byline's label with a
#: colon: ``By``, ``Posted by``, German ``Von``, French ``Par``, Spanish and Portuguese ``Por``, Dutch
#: ``Door``; the latter only before a name of two words or more (``Von Miller`` is a name).
_BY_PREFIX = re.compile(r"^\s*(?:(?:posted\s+|written\s+)?by\b|(?:von|par|por|door)\b(?=\s+\S+\s+\S))[\s:]*",
                        re.IGNORECASE)
_SPACES = re.compile(r"\s+")
#: The page's ``<title>``, not an inline SVG icon's (which names the icon: a page without a title of its
#: own, such as an article's HTML fragment, would be titled "Share").
_PAGE_TITLE = "title:not(svg title)"
#: JSON-LD's media type, a script's ``type`` essence.
JSON_LD_TYPE = "application/ld+json"
#: What parts a page's title from its site's name (``Harbor strike ends | The Gazette``), spaced apart:
#: a headline's own ``Covid-19`` or ``Review: ...`` is no separator.
_TITLE_SEPARATOR = re.compile(r"\s+[|\-\u2013\u2014\u00b7\u2022\u00bb]\s+")
#: A BCP 47 language tag as pages write one (``en``, ``en-GB``, ``zh-Hant-TW``, ``es-419``); not
#: ``English``, ``x-default`` or a template's ``{{ lang }}``.
_LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]{1,8})*", re.IGNORECASE)
#: An author value that is a profile URL (``article:author`` on Facebook's spec) names no one readable...
_URL = re.compile(r"^(?:\w+://|www\.)", re.IGNORECASE)
#: ... nor does a social network handle (``@janedoe``), an e-mail address...
_HANDLE = re.compile(r"@[\w.]+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: ... nor what a CMS writes for no one (its default user, its desk) or an author link's label (Blogger's
#: "View my complete profile"), case and a closing colon aside.
NOT_NAMES = frozenset({
    "about", "about me", "about us", "about the author", "admin", "administrator", "anonymous", "author",
    "author archive", "authors", "editor", "google profile", "guest", "staff", "unknown", "view profile",
    "view my complete profile", "webmaster",
})
#: The classes of a byline that names its authors in plain text, not links (``<p class="byline">By Jane
#: Doe</p>``, ``<span class="author">``): the benchmarks' pages' most common, WordPress's and h-entry's.
BYLINE_CLASSES = ("byline", "byline-name", "byline-author", "author", "author-name", "article-author", "post-author",
                  "entry-author", "the-author", "p-author")
_PLAIN_BYLINE = ", ".join(f".{name}" for name in BYLINE_CLASSES)
#: Where a plain byline's first name ends: what it is and its date follow (``By Jane Doe, Staff Writer``,
#: ``Jane Doe | May 7, 2024``, ``Jane Doe (Oslo)``, a photo credit's ``Jane Doe /``).
_BYLINE_NAME_END = re.compile(r"\s*[,|(\u2022\u00b7]|\s/|\s[-\u2013\u2014]\s")
#: A name in a plain byline has at most this many words (``Jane E. de Doe``): a longer capitalised text
#: there is a title.
MAX_NAME_WORDS = 4
#: Words no person's name holds, case aside, which a plain byline's desk, role or publication has
#: (``Globe Staff``, ``Sports Network``, ``Staff Writer``), or a link there (``View Comments``, ``About
#: Jane Doe``, ``The Author``); a byline's two names joined by ``AND`` in capitals are not parted.
NOT_NAME_WORDS = frozenset({
    "staff", "desk", "team", "editor", "editors", "writer", "reporter", "correspondent", "contributor", "columnist",
    "news", "press", "editorial", "media", "newsroom", "sports", "network", "weekly", "magazine", "newspaper",
    "comments", "view", "search", "author", "about", "and",
})
#: Nor does it hold a digit (a date after it: ``Jane Doe 7 May``), a colon (a label: ``Search Site:``) or a
#: possessive (``People's Weekly``, ``NBC's Jane Doe``).
_NOT_NAME_CHARACTERS = re.compile(r"[\d:]|['\u2019]s\b")
#: An HTML tag in a JSON-LD text (``"author": "<a href=/jane>Jane Doe</a>"``), which is no markup there;
#: a ``<`` not followed by a tag name is text (``x < y``).
_TAG = re.compile(r"</?[a-z][^<>]*>", re.IGNORECASE)


@dataclass
class Metadata:
    """What a page says about itself; None where it says nothing."""

    title: str | None = None
    author: str | None = None
    #: When the article was published (never modified), in ISO 8601: ``2024-05-01T09:30:00+00:00``, or
    #: ``2024-05-01`` when the page gives no time.
    date: str | None = None
    #: A BCP 47 tag as the page declares it, cased as BCP 47 cases it, ``_`` made ``-`` (``en``, ``en-GB``,
    #: ``pt-BR``).
    language: str | None = None
    site_name: str | None = None
    description: str | None = None
    #: The picture the page gives for previews of it (a link's card), as an absolute http(s) address.
    image: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return asdict(self)


def read_metadata(html: str, url: str | None = None) -> Metadata:
    """The metadata of a page's HTML (any HTML: a broken or empty page gives empty metadata); ``url``,
    where it came from, may hold its date."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    meta_lists = _meta_values(tree)
    meta = {name: values[0] for name, values in meta_lists.items()}
    json_ld = _json_ld(tree)
    article = json_ld.article
    publisher = json_ld.resolved(article.get("publisher"))
    not_authors = frozenset(name.casefold() for name in [_not_person_name(publisher)] if name)
    site_name = _first(meta.get("og:site_name"), _ld_text(publisher), meta.get("application-name"))
    site_names = frozenset(_letters(name) for name in (site_name, meta.get("application-name"), _domain_name(url)) if name)
    page_title = _without_site_name(_first(meta.get("og:title"), meta.get("twitter:title"), _text(tree, _PAGE_TITLE)),
                                    site_names)
    heading = _text(tree, "h1")
    url_day = _iso_date(_url_date(url))
    return Metadata(
        title=_first(_shown_headline(_ld_text(article.get("headline")), page_title, heading), page_title, heading),
        author=_first_authors(not_authors, _ld_authors(json_ld), *(meta_lists.get(name, []) for name in AUTHOR_META_NAMES),
                              *(_byline(tree, selector, not_authors) for selector in ("[rel~=author]", "[itemprop=author]")),
                              _plain_byline(tree, not_authors)),
        date=_not_after_url_day(_first_valid(
            _iso_date, _ld_text(article.get("datePublished")), _ld_text(article.get("dateCreated")),
            *(meta.get(name) for name in DATE_META_NAMES), *_dates(tree, "[itemprop=datePublished]"), url_day,
            *_dates(tree, _ARTICLE_TIME), _only_time(tree)), url_day),
        language=_first_valid(_language, _attribute(tree, "html", "lang"), meta.get("content-language"),
                              _ld_text(article.get("inLanguage")), meta.get("og:locale")),
        site_name=site_name,
        description=_first(meta.get("og:description"), meta.get("description"), meta.get("twitter:description"),
                           _ld_text(article.get("description"))),
        image=_first_valid(lambda address: _image_address(address, url), *_ld_images(json_ld, article.get("image")),
                           *(meta.get(name) for name in IMAGE_META_NAMES), _attribute(tree, "link[rel~=image_src]", "href")),
    )


def collected_metadata(page: "Page") -> Metadata:
    """The metadata a collected page carries without its HTML: its first title (``document.title``) and
    description, and its language. Author, date and site name are only in the HTML: None."""
    return Metadata(title=_first(*page.titles), language=_language(_first(page.lang)),
                    description=_first(*page.descriptions))


# -- sources -----------------------------------------------------------------------------------------


def _meta_values(tree: Any) -> dict[str, list[str]]:
    """``<meta>`` contents by lower-cased ``property``, ``name``, ``itemprop`` or ``http-equiv``, each
    name's in the page's order (a page may list its authors so)."""
    values: dict[str, list[str]] = {}
    for node in tree.css("meta[content]"):
        attributes = node.attributes
        content = _clean(attributes.get("content"))
        if not content:
            continue
        for key in ("property", "name", "itemprop", "http-equiv"):
            name = (attributes.get(key) or "").strip().lower()
            if name:
                values.setdefault(name, []).append(content)
    return values


def read_json_ld(text: str, *, repair: bool = True) -> Any:
    """The data of one JSON-LD script, or None when it cannot be read: broken JSON, nesting deeper than
    Python's parser goes (``[`` × 3,000 raises RecursionError), more than :data:`MAX_JSON_LD_CHARS`. It is
    page data, not the caller's input: a publisher's unreadable JSON-LD is skipped, never the reader's
    problem. JSON as CMSs break it is read (:func:`_repaired_json`), and raw tabs and line breaks in its
    strings taken; ``repair=False`` reads valid JSON only, as the fallback's block model was trained to
    (:mod:`sitewise.mss.blocks`)."""
    if len(text) > MAX_JSON_LD_CHARS:
        return None
    for reading in (text, _repaired_json(text)) if repair else (text,):
        try:
            return json.loads(reading, strict=not repair)
        except (ValueError, RecursionError):
            continue
    return None


def _repaired_json(text: str) -> str:
    """A JSON-LD script's text as JSON: from its first ``{`` or ``[`` to its last ``}`` or ``]`` (outside
    them a byte order mark, a comment, XHTML's ``//<![CDATA[``, an HTML comment), without trailing
    commas, and decoded from HTML when it was escaped as a whole (``{&quot;@type&quot;: ...}``)."""
    if '"' not in text:
        text = html_lib.unescape(text)
    text = text.replace(_CDATA_START, "").replace(_CDATA_END, "")  # their brackets are no JSON's
    start = min((index for index in (text.find("{"), text.find("[")) if index >= 0), default=0)
    end = max(text.rfind("}"), text.rfind("]")) + 1
    return _TRAILING_COMMA.sub(r"\1", text[start:end or len(text)])


@dataclass
class _JsonLd:
    """A page's JSON-LD: its article object ({} when it has none), and every object by its ``@id``."""

    article: dict[str, Any]
    by_id: dict[str, dict[str, Any]]

    def resolved(self, value: Any) -> Any:
        """A reference (``{"@id": "#jane"}``, as Yoast names an article's author) as the object it names in
        the page's graphs; any other value as it is."""
        reference = value.get("@id") if isinstance(value, dict) and "name" not in value else None
        return self.by_id.get(reference, value) if isinstance(reference, str) else value


def _json_ld(tree: Any) -> _JsonLd:
    """The page's JSON-LD objects: the first of an article type, and those an ``@id`` names."""
    article: dict[str, Any] = {}
    by_id: dict[str, dict[str, Any]] = {}
    for node in tree.css("script[type]"):
        if not _is_json_ld(node.attributes.get("type")):
            continue
        for item in _ld_objects(read_json_ld(node.text(deep=True) or "null")):
            if not article and _types(item) & ARTICLE_TYPES:
                article = item
            if isinstance(item.get("@id"), str) and len(item) > 1:
                by_id.setdefault(item["@id"], item)
    return _JsonLd(article, by_id)


def _is_json_ld(script_type: str | None) -> bool:
    """Whether a script's ``type`` is JSON-LD's media type, as a browser reads one: its essence, case aside,
    with parameters or spaces around it (``application/ld+json; charset=utf-8``, ``Application/LD+JSON``)."""
    return (script_type or "").split(";")[0].strip().lower() == JSON_LD_TYPE


def _types(item: dict[str, Any]) -> set[str]:
    """A JSON-LD object's schema.org types, however spelled (``NewsArticle``, ``schema:NewsArticle``)."""
    types = item.get("@type")
    return {_SCHEMA_PREFIX.sub("", t) for t in (types if isinstance(types, list) else [types]) if isinstance(t, str)}


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


def _ld_authors(json_ld: _JsonLd) -> list[str | None]:
    """The article's JSON-LD ``author``: a name, a Person or Organization (or a reference to one), or a
    list of those, each as its text."""
    value = json_ld.article.get("author")
    return [_ld_text(author) or _person_name(author)
            for author in map(json_ld.resolved, value if isinstance(value, list) else [value])]


def _person_name(value: Any) -> str | None:
    """A JSON-LD Person's name by its parts (``{"givenName": "Jane", "familyName": "Doe"}``)."""
    parts = (_ld_text(value.get(part)) for part in _PERSON_NAME_PARTS) if isinstance(value, dict) else ()
    return " ".join(filter(None, parts)) or None


def _not_person_name(value: Any) -> str | None:
    """The name of a JSON-LD Organization (a publisher), None for a Person's."""
    return None if isinstance(value, dict) and _PERSON in _types(value) else _ld_text(value)


def _ld_text(value: Any) -> str | None:
    """A JSON-LD text value, its HTML entities decoded: a script's text is not HTML to the parser, yet
    publishers escape it as if it were (WordPress's Yoast writes ``Traveler&#8217;s Guide &amp; Tips``),
    and its tags are left out.
    Attribute values and element text come decoded from the parser and are not decoded twice. Of a list
    (``"datePublished": ["2024-05-07", ...]``), the first."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):  # {"@type": "Language", "name": "English"}, {"@value": ...}
        value = value.get("@value", value.get("name"))
    return _clean(_TAG.sub("", html_lib.unescape(value))) if isinstance(value, str) else None


def _text(tree: Any, selector: str) -> str | None:
    """The text of the first element ``selector`` selects that has any: the first may have none (a
    ``<link rel=author>`` in the head before the byline's link, a logo's ``<h1>`` holding an image)."""
    return _first(*_texts(tree, selector))


def _texts(tree: Any, selector: str) -> Iterator[str]:
    return (node.text(deep=True) for node in tree.css(selector))


def _byline(tree: Any, selector: str, not_authors: frozenset[str]) -> list[str]:
    """The texts of the elements ``selector`` selects in the byline: the first that names someone and
    those beside it (under its parent: ``By <a>Jane Doe</a> and <a>John Roe</a>``). Elsewhere a page
    links its other stories' authors and its profile pages ("View my complete profile")."""
    nodes = tree.css(selector)
    first = next((node for node in nodes if _names(_author_text(node), not_authors)), None)
    return [_author_text(node) for node in nodes if first is not None and node.parent == first.parent]


def _author_text(node: Any) -> str | None:
    """An author element's name: of the ``itemprop="name"`` it holds (a schema.org Person's, whose element
    also holds a job title, a bio, a "Follow" button, a forum's badges) its ``content`` or text, else its text."""
    name = node.css_first("[itemprop~=name]")
    return _first(*((name.attributes.get("content"), name.text(deep=True)) if name is not None else ()),
                  node.text(deep=True))


def _plain_byline(tree: Any, not_authors: frozenset[str]) -> list[str]:
    """The names a byline written as plain text gives (an element of :data:`BYLINE_CLASSES` outside the
    comments), each looking like a person's (:func:`_plain_names`). When several such elements name
    someone, one's names hold all the others' (a byline and its inner ``.author``, a byline at the
    article's top and at its end): otherwise they are a list's (stories, photo credits), none the byline."""
    found = [names for node in tree.css(_PLAIN_BYLINE) if not _in_comments(node)
             for names in [_plain_names(node.text(deep=True, separator=" "), not_authors)] if names]
    byline = max(found, key=len, default=[])
    letters = {_letters(name) for name in byline}
    return byline if all({_letters(name) for name in names} <= letters for names in found) else []


def _plain_names(text: str, not_authors: frozenset[str]) -> list[str]:
    """The names a plain byline's text starts with, without its "By" and what follows its first name
    (:data:`_BYLINE_NAME_END`): ``By Jane Doe and John Roe | May 7`` names two. None unless each looks
    like a person's full name of at most :data:`MAX_NAME_WORDS` words without a digit or one of
    :data:`NOT_NAME_WORDS` or an English day's name, the date line's (not ``Globe Staff``, ``May 7, 2024``,
    ``Jane Doe Monday``, ``SEROLOGY: IT'S IN THE BLOOD``): other languages' days are also names (Domingo,
    Sobota)."""
    names = _names(_BYLINE_NAME_END.split(_BY_PREFIX.sub("", text), 1)[0], not_authors)
    return names if all(map(_is_plain_name, names)) else []


def _is_plain_name(name: str) -> bool:
    words = name.split()
    return (_is_full_name(name) and len(words) <= MAX_NAME_WORDS and not _NOT_NAME_CHARACTERS.search(name)
            and not {word.casefold() for word in words} & (NOT_NAME_WORDS | _ENGLISH_WEEKDAYS))


def _in_comments(node: Any) -> bool:
    """Whether an element is in the page's comments (WordPress's ``comment-author``, a thread's ``.author``):
    it or an ancestor has a class or id naming them (:data:`~sitewise.elements.COMMENT_NAME`). A commenter
    is no author."""
    while node is not None:
        if COMMENT_NAME.search(" ".join(filter(None, (node.attributes.get("class"), node.attributes.get("id"))))):
            return True
        node = node.parent
    return False


def _dates(tree: Any, selector: str) -> Iterator[str | None]:
    """The date each element ``selector`` selects gives: its ``datetime`` or ``content``, else its text."""
    for node in tree.css(selector):
        yield _first(node.attributes.get("datetime"), node.attributes.get("content"), node.text(deep=True))


def _only_time(tree: Any) -> str | None:
    """The date of the page's ``<time>`` when it has only one: of several outside the article, the first
    is as often a related story's."""
    dates = list(_dates(tree, "time"))
    return dates[0] if len(dates) == 1 else None


def _not_after_url_day(date: str | None, url_day: str | None) -> str | None:
    """``date``, or the (valid) day in the page's URL where ``date`` is more than :data:`_URL_DAY_SLACK`
    after it: a CMS files a story under its day once, so a later date is when it was changed or served
    (NBC's ``<meta name="date">`` gave the day a page was fetched, a week after its URL's)."""
    if date is None or url_day is None:
        return date
    later = _dt.date.fromisoformat(date[:10]) - _dt.date.fromisoformat(url_day) > _URL_DAY_SLACK
    return url_day if later else date


def _url_date(url: str | None) -> str | None:
    """The day in a URL's path (``/2024/05/07/``), as ISO 8601, or None."""
    found = _URL_DATE.search(urllib.parse.urlsplit(url).path) if url else None
    return "-".join(f"{int(part):0{width}d}" for part, width in zip(found.groups(), (4, 2, 2))) if found else None


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


def _first_authors(not_authors: frozenset[str], *sources: list[str | None]) -> str | None:
    """The authors the first of ``sources`` (each the values one source gives) that names anyone names,
    each once (letters compared: ``Jane Doe``, ``JANE DOE``), at most :data:`MAX_AUTHORS`, joined by
    :data:`AUTHOR_SEPARATOR`. Sources are not merged: each names the authors its own way (a name, a
    profile, ``Doe, Jane``)."""
    for values in sources:
        names: dict[str, str] = {}
        for value in values:
            for name in _names(value, not_authors):
                names.setdefault(_letters(name), name)
        if names:
            return AUTHOR_SEPARATOR.join(list(names.values())[:MAX_AUTHORS])
    return None


def _names(value: str | None, not_authors: frozenset[str]) -> list[str]:
    """The names in one author value, without its "By": several when it parts names that each look like
    one (``Jane Doe and John Roe``), else the value as it is (``Ada & Sam``, ``Ernst & Young``, ``Department
    of Health and Human Services``). None of a value that names no one readable (a profile URL, a
    handle, an e-mail address, :data:`NOT_NAMES`), is too long for a byline, or names the publisher
    (``not_authors``)."""
    value = _clean(_BY_PREFIX.sub("", value)) if value else None
    if not value or _URL.match(value) or len(value) > MAX_AUTHOR_CHARS:
        return []
    parts = _AUTHORS_SEPARATOR.split(value)
    names = parts if len(parts) > 1 and all(map(_is_full_name, parts)) else [value]
    return [name for name in names if not _is_no_name(name, not_authors)]


def _is_full_name(text: str) -> bool:
    """Whether ``text`` looks like a person's full name: two words at least, each starting with a letter
    upper case (or of a script without case). Not with a comma: ``Jane Doe, Garden Editor`` is a name
    and what the name's person is, which may be all the byline's (``Jane Doe and John Roe, Reuters``)."""
    words = text.split()
    return len(words) > 1 and "," not in text and all(word[0].isalpha() and not word[0].islower() for word in words)


def _is_no_name(name: str, not_authors: frozenset[str]) -> bool:
    folded = name.casefold()
    return (_HANDLE.fullmatch(name) is not None or _EMAIL.fullmatch(name) is not None
            or folded.rstrip(":").strip() in NOT_NAMES or folded in not_authors)


def _ld_images(json_ld: _JsonLd, value: Any) -> list[str | None]:
    """The addresses a JSON-LD ``image`` gives, in its order: an address, an ``ImageObject`` (its ``url``
    or ``contentUrl``), a reference to one, or a list of those."""
    addresses = []
    for item in value if isinstance(value, list) else [value]:
        item = json_ld.resolved(item)
        if isinstance(item, dict):
            item = item.get("url") or item.get("contentUrl")
        addresses.append(item if isinstance(item, str) else None)
    return addresses


def _image_address(address: str | None, url: str | None) -> str | None:
    """An image's address resolved against the page's ``url`` and percent-encoded as the outputs' links
    are; None unless that gives an absolute http(s) address (a ``data:`` picture; a relative one on a page
    whose URL is not known)."""
    from .structure import IMAGE_SCHEMES, resolved_address

    resolved = resolved_address(address or "", url, IMAGE_SCHEMES)
    return resolved if urllib.parse.urlsplit(resolved).scheme else None


def _first_valid(read: Callable[[str | None], str | None], *values: str | None) -> str | None:
    """The first of ``values`` that ``read`` reads as the field's (a day, a language tag), as it reads it."""
    return next(filter(None, (read(_clean(value)) for value in values)), None)


def _shown_headline(headline: str | None, page_title: str | None, heading: str | None) -> str | None:
    """The article's JSON-LD ``headline`` unless the page shows another title: its ``<h1>`` (``heading``)
    when its title without the site's name (``page_title``) is the same, letters compared. Wikipedia's
    headline is its Wikidata description, and a CMS may cut one short (``... talks between...``). The
    ``<h1>`` alone says nothing: it is as often a logo, the site's name its title ends with, or a
    section's name."""
    if headline and heading and page_title and _letters(heading) == _letters(page_title) != _letters(headline):
        return heading
    return headline


def _without_site_name(title: str | None, site_names: frozenset[str]) -> str | None:
    """A page's title without its site's name (``Harbor strike ends | The Gazette``, ``The Gazette —
    Harbor strike ends``): the part a separator parts from one of ``site_names`` (as :func:`_letters`
    gives them). As it is when nothing says which part is the site's: not the page's ``<h1>`` either,
    which on a blog is as often the blog's name (``EDDIE ROSS - flower magazine``) as the post's."""
    for separator in _TITLE_SEPARATOR.finditer(title or ""):
        before, after = title[:separator.start()], title[separator.end():]
        if _letters(after) in site_names:
            return before
        if _letters(before) in site_names:
            return after
    return title


def _letters(name: str) -> str:
    """A name's letters and digits, case folded: ``Ed Brill``, ``ed-brill`` and ``EdBrill`` are one."""
    return "".join(character for character in name.casefold() if character.isalnum())


def _domain_name(url: str | None) -> str | None:
    """The name a site's address gives it: the first label of its registrable domain (``edbrill`` of
    ``http://www.edbrill.com/...``), which a title's site part often spells (``Ed Brill - ...``)."""
    from .page import PageError, site_of

    try:
        return site_of(url).split(".")[0] if url else None
    except PageError:
        return None


def _iso_date(value: str | None) -> str | None:
    """A date in ISO 8601, its time and zone kept as given (``Z`` made ``+00:00``; a date without a time
    stays one), or None for a value that is no day (``yesterday``, ``2024-13-45``), says it ambiguously
    (``05/07/2024``, a number of seconds or milliseconds) or is a CMS's "no date"."""
    if value is None:
        return None
    parsed = _parsed_date(value)
    if parsed is None:
        return None
    day = parsed.date() if isinstance(parsed, _dt.datetime) else parsed
    if day in _NO_DATE_DAYS or day > _dt.date.today() + _FUTURE_SLACK:
        return None
    return parsed.isoformat()


def _parsed_date(value: str) -> _dt.date | _dt.datetime | None:
    try:
        if _ISO_DATE.fullmatch(value):
            return _parsed_iso_date(value)
        if _RFC_2822_DATE.fullmatch(value):
            return email.utils.parsedate_to_datetime(value)
    except ValueError:
        return None
    try:
        return _written_date(_ORDINAL.sub("", value)) or _dt.datetime.strptime(value, _YEAR_FIRST_DATE).date()
    except ValueError:
        return None


def _written_date(value: str) -> _dt.date | None:
    """A day written out with its month's name (:data:`_WRITTEN_DATES`), in one of :data:`MONTH_NAMES`'
    languages, or None. Raises ValueError for a day its month has not (``May 32, 2024``)."""
    for written in _WRITTEN_DATES:
        found = written.fullmatch(value)
        month = found and _numbered(found["month"], _MONTHS)
        if month and (found["weekday"] is None or _numbered(found["weekday"], _WEEKDAYS)):
            return _dt.date(int(found["year"]), month, int(found["day"]))
    return None


def _numbered(name: str, numbers: dict[str, int]) -> int | None:
    """The number of the month or day ``name`` names, of ``numbers`` (:data:`_MONTHS`, :data:`_WEEKDAYS`):
    by one of its forms, or a beginning of forms of that one only (``Okt``, ``janv``, ``Tue``; not ``jui``,
    June's and July's in French), or None."""
    folded = _folded(name)
    if folded in numbers:
        return numbers[folded]
    named = {number for form, number in numbers.items() if form.startswith(folded)}
    return named.pop() if len(named) == 1 and len(folded) >= _MIN_ABBREVIATION else None


def _folded(name: str) -> str:
    """A name case folded, the Turkish dotless and dotted i made i (``MAYIS`` is ``Mayıs``)."""
    return name.replace("İ", "i").replace("ı", "i").casefold()


def _numbers(names: dict[str, str]) -> dict[str, int]:
    """Every form (folded) in a table of names such as :data:`MONTH_NAMES`, and the number (from 1) of
    the month or day it names."""
    return {_folded(form): number for language in names.values()
            for number, forms in enumerate(language.split("|"), 1) for form in forms.split()}


_MONTHS, _WEEKDAYS = _numbers(MONTH_NAMES), _numbers(WEEKDAY_NAMES)
_ENGLISH_WEEKDAYS = frozenset(WEEKDAY_NAMES["en"].split("|"))


def _parsed_iso_date(value: str) -> _dt.date | _dt.datetime:
    """A date :data:`_ISO_DATE` matches, as Python's ``fromisoformat`` reads it: a day alone, or its time
    with the zone written as Python takes it (after no space, UTC as ``+00:00``, upper case ``T``)."""
    day, time = value[:len("2024-05-07")], value[len("2024-05-07"):].upper()
    if not time:
        return _dt.date.fromisoformat(day)
    zone = _ISO_ZONE.search(time)
    if zone:
        time = time[:zone.start()] + ("+00:00" if zone["utc"] else zone["offset"])
    return _dt.datetime.fromisoformat(day + time)


def _language(value: str | None) -> str | None:
    """A language tag cased as BCP 47 cases it (``en_us`` → ``en-US``, ``zh-hant-tw`` → ``zh-Hant-TW``),
    the first of a list (``de, en``); None for what is no tag."""
    first = value.replace("_", "-").split(",")[0].strip() if value else ""
    if not _LANGUAGE_TAG.fullmatch(first):
        return None
    language, *subtags = first.split("-")
    # a region is two letters (GB), a script four (Hant); a region may be three digits (419)
    return "-".join([language.lower(), *(tag.upper() if len(tag) == 2 else tag.title() if len(tag) == 4 else tag.lower()
                                         for tag in subtags)])
