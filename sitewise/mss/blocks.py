"""What the block model sees of each line of a page: explainable features that carry across sites,
decades and page types.

A *block* is one output line of the tokenizer that holds words (the text of one block-level element,
e.g. a paragraph, a list item, a table cell). :func:`block_features` describes every block by

* **text**: words, characters, stop-word share, punctuation, sentence ends, digits, capitals;
* **links**: share of the text inside links, links per word;
* **DOM**: the owning element's tag, depth, which structural ancestors it has (``article``, ``main``,
  ``nav``, ``aside``, ``footer``, ``form``, ``li``, ``table`` ...), how far up the nearest id/class name
  of each kind is (navigation, comments, sharing, content, product ...), ARIA roles and ``itemprop``;
* **position**: where in the page it is, and how far from the heading that repeats the title;
* **context**: the same text statistics for its neighbours and for the containers it sits in, so a
  block is judged with the blocks around it (a one-line paragraph among paragraphs, a link among links);
* **structured data**: overlap with the title, the description and a JSON-LD ``articleBody``;
* **page**: what kind of page the markup says it is (``og:type``, JSON-LD ``@type``), its size and
  link share, so one model can learn a profile per page type.

Everything is numeric (one float column per name in :data:`FEATURE_NAMES`) and computed with numpy
over the token arrays where it can be, so describing a page costs a few milliseconds.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from operator import itemgetter
from urllib.parse import urlsplit

import numpy as np
from lxml import etree

from .. import metrics
from ..metadata import JSON_LD_TYPE, read_json_ld
from ..urls import page_address
from .boundaries import BOUNDARY_SCORE, FEATURES_COUNT_SYMBOLS, closing_lines
from .clean import is_hidden
from .scorers import LineScorer, word_facts
from .search import anchored, max_subsequence
from .tokenize import OPEN, WORD, TokenSequence
from .wordsets import WordSets

#: Tags that can own a line, one column each (anything else shares "other").
OWNER_TAGS = (
    "p", "div", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dd", "dt", "blockquote", "pre",
    "section", "article", "header", "footer", "figcaption", "figure", "caption", "summary", "address",
    "form", "table", "tr", "ul", "ol", "body", "nav", "aside", "main", "center", "details", "label",
)
#: Structural ancestors whose presence says what region a block is in.
ANCESTOR_TAGS = (
    "article", "main", "aside", "nav", "footer", "header", "form", "li", "table", "figure", "blockquote",
    "pre", "section", "dl", "button", "label", "h1", "h2", "h3", "a", "noscript",
)
#: Kinds of id/class names, by the words their lower-cased names hold (anywhere: "site-nav", "navbar"):
#: the distance up to the nearest element so named is a feature per kind.
NAME_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("nav", ("nav", "menu", "breadcrumb", "pagination", "pager", "toolbar", "skip")),
    ("side", ("sidebar", "side-bar", "aside", "widget", "rail", "secondary")),
    ("social", ("share", "sharing", "social", "follow", "facebook", "twitter", "whatsapp")),
    ("comment", ("comment", "disqus", "respond", "replies")),
    ("related", ("related", "recommend", "popular", "trending", "teaser", "promo", "more-", "also", "read-next",
                 "next-post")),
    ("ad", ("advert", "sponsor", "banner", "dfp", "outbrain", "taboola", "gpt")),
    ("footer", ("footer", "copyright", "legal", "colophon")),
    ("header", ("header", "masthead", "topbar", "navbar", "top-bar", "site-title", "logo", "brand")),
    ("content", ("content", "article", "post", "entry", "story", "body", "text", "main", "prose", "blog")),
    ("meta", ("author", "byline", "date", "time", "meta", "info", "categor", "dateline", "published")),
    ("caption", ("caption", "credit", "figure", "gallery", "photo", "image", "img", "media", "video")),
    ("subscribe", ("newsletter", "subscri", "signup", "sign-up", "login", "register", "cookie", "consent", "modal",
                   "popup", "overlay", "gdpr", "cta")),
    ("title", ("title", "headline", "heading")),
    ("product", ("product", "price", "descri", "spec", "detail", "feature", "review", "rating", "cart", "buy")),
    ("forum", ("forum", "thread", "message", "topic", "reply", "answer", "question", "discussion", "postbody",
               "post-body", "bbcode")),
    ("hidden", ("hidden", "sr-only", "visually-hidden", "screen-reader", "offscreen")),
    ("list", ("list", "grid", "card", "item", "tile", "result", "feed", "archive")),
    ("doc", ("doc", "markdown", "rst", "highlight", "code", "api", "reference", "manual", "wiki")),
)
#: Words of a kind too short to count anywhere in a name: only at its start or end or beside a - or _
#: ("ad" is in "header" and "shadow", "tag" in "stage").
NAME_KIND_PATTERNS = {"ad": r"(?:^|[-_])ads?(?:$|[-_\d])", "meta": r"tags?(?:$|[-_])"}
#: ARIA roles and ``itemprop`` values, grouped.
ROLE_KINDS: tuple[tuple[str, frozenset[str]], ...] = (
    ("role_furniture", frozenset({"navigation", "banner", "contentinfo", "complementary", "menu", "menubar",
                                  "search", "dialog", "alertdialog", "toolbar", "tablist"})),
    ("role_main", frozenset({"main", "article", "document"})),
    ("itemprop_body", frozenset({"articlebody", "text", "reviewbody", "description", "mainentity",
                                 "acceptedanswer", "suggestedanswer", "comment"})),
    # not a role: the element is hidden (``hidden``, ``aria-hidden``, an inline ``display: none``). Kept
    # as a feature rather than removed: server-rendered pages often hide the whole content until scripts
    # run, and menus and dialogs hide theirs until clicked.
    ("hidden_attr", frozenset()),
)
#: og:type values and JSON-LD @type groups: a column each.
PAGE_KINDS: tuple[tuple[str, frozenset[str]], ...] = (
    ("article", frozenset({"article", "newsarticle", "blogposting", "reportagenewsarticle", "techarticle",
                           "scholarlyarticle", "opinionnewsarticle", "analysisnewsarticle", "posting"})),
    ("product", frozenset({"product", "offer", "aggregateoffer", "productgroup", "og:product"})),
    ("forum", frozenset({"qapage", "discussionforumposting", "question", "answer", "socialmediaposting"})),
    ("collection", frozenset({"itemlist", "collectionpage", "searchresultspage", "listitem", "offercatalog"})),
    ("howto", frozenset({"howto", "recipe", "faqpage", "course", "event", "jobposting", "softwareapplication"})),
    ("website", frozenset({"website", "webpage", "organization", "localbusiness", "aboutpage", "contactpage"})),
)

#: A page's URL names one item (a story, a post, a product) when its last path segment is a slug of at
#: least this many words (``/2024/05/harbour-reopens-after-repairs``) ...
ITEM_SLUG_WORDS = 4
#: ... or its path or query holds a number of at least this many digits (``/story/0,22049,23019666,00.html``,
#: ``index.cfm?sid=93539``); shorter numbers are years, months and page numbers.
ITEM_NUMBER_DIGITS = 5
_ITEM_NUMBER = re.compile(r"\d{%d,}" % ITEM_NUMBER_DIGITS)
_SLUG_SEPARATORS = re.compile(r"[-_+]")
_FILE_EXTENSION = re.compile(r"\.\w{2,5}$")

_ARTICLE_KINDS = dict(PAGE_KINDS)["article"]

#: Distance reported when no ancestor has the name/role (further than any real one).
FAR = 30
#: Neighbourhood windows (lines either side) for the smoothed context features.
WINDOWS = (2, 6)
#: Signed distance to the title heading is clipped here (lines).
MAX_TITLE_DISTANCE = 200

_NAME_WORDS = WordSets(dict(NAME_KINDS), NAME_KIND_PATTERNS)
#: Marks that end a sentence: the Latin ones, the Chinese and Japanese full-width ones (and the half-width
#: ideographic stop), the Devanagari and Bengali danda, the Arabic question mark and the Urdu full stop,
#: the Ethiopic and Myanmar full stops.
_SENTENCE_END = frozenset(".!?。！？｡．।॥؟۔።။")
_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_COMMA = frozenset({","})


def _feature_names() -> tuple[str, ...]:
    text = ("line_class", "line_mss_run", "words", "chars", "stop_share", "punct_share", "sentence_ends", "commas", "digit_share",
            "capital_share", "mean_word_chars", "link_share", "links_per_word", "inline_tags_per_word",
            "ends_sentence", "copyright")
    own = tuple(f"tag_{t}" for t in OWNER_TAGS) + ("tag_other", "depth", "block_depth", "repeat_self",
                                                     "repeat_parent", "repeat_grand")
    ancestors = tuple(f"in_{t}" for t in ANCESTOR_TAGS)
    names = tuple(f"name_{k}" for k, _ in NAME_KINDS) + tuple(k for k, _ in ROLE_KINDS)
    position = ("position", "line_position", "title_distance", "is_title", "after_title", "title_overlap",
                "description_overlap", "body_overlap", "heading_before", "is_closing_line", "closing_before")
    neighbours = tuple(f"{side}_{stat}" for side in ("prev", "next")
                       for stat in ("words", "link_share", "stop_share", "same_owner_tag"))
    windows = tuple(f"win{w}_{stat}" for w in WINDOWS for stat in ("words", "link_share", "prose"))
    containers = tuple(f"{level}_{stat}" for level in ("parent", "grand", "top")
                       for stat in ("words", "link_share", "stop_share", "lines", "page_share"))
    page = ("page_words", "page_lines", "page_link_share", "page_stop_share", "page_has_body",
            "url_depth", "url_digits") + tuple(f"page_{k}" for k, _ in PAGE_KINDS)
    return text + own + ancestors + names + position + neighbours + windows + containers + page


#: Column names of :func:`block_features`' matrix, in order.
FEATURE_NAMES = _feature_names()


@dataclass
class PageSignals:
    """What the page says about itself outside its body text (read before the clean-up drops ``<head>``)."""

    title: frozenset[str] = frozenset()
    description: frozenset[str] = frozenset()
    body: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()
    url: str = ""


def page_signals(root: etree._Element, url: str | None = None) -> PageSignals:
    """Title, description, JSON-LD ``articleBody`` words and the page kinds the markup declares."""
    title_words: list[str] = []
    description: list[str] = []
    kinds: set[str] = set()
    for title in root.iter("title"):
        title_words = metrics.words(title.text or "")
        break
    for meta in root.iter("meta"):
        key = (meta.get("property") or meta.get("name") or "").lower()
        content = meta.get("content") or ""
        if key in ("og:title", "twitter:title"):
            title_words += metrics.words(content)
        elif key in ("description", "og:description", "twitter:description"):
            description += metrics.words(content)
        elif key == "og:type":
            kinds.add(content.strip().lower())
    body: list[str] = []
    for script in root.iter("script"):
        # The exact type, as the shipped model was trained (the metadata also reads parameters: _is_json_ld).
        if (script.get("type") or "").lower() != JSON_LD_TYPE or not script.text:
            continue
        # Valid JSON only: the shipped model learned these signals so. Retrained with CMSs' broken JSON-LD
        # repaired as the metadata reads it, it lost on dragnet (0.896 -> 0.893) and CleanEval (0.927 ->
        # 0.926) for 0.870 -> 0.872 on wcxb-dev (docs/mss.md, session 23).
        for node in _json_nodes(read_json_ld(script.text, repair=False)):
            declared = node.get("@type")
            for kind in declared if isinstance(declared, list) else [declared]:
                if isinstance(kind, str):
                    kinds.add(kind.lower())
            text = node.get("articleBody") or node.get("text")
            if isinstance(text, str):
                body += metrics.words(text)
            if isinstance(node.get("description"), str):
                description += metrics.words(node["description"])
    return PageSignals(frozenset(title_words), frozenset(description), frozenset(body), frozenset(kinds), page_address(url))


def reads_as_section(signals: PageSignals) -> bool:
    """Whether a page reads as a section of its site (a collection, a listing, a category, a home page)
    rather than one item: it does not declare itself an article, and its URL names no single item
    (:data:`ITEM_SLUG_WORDS`, :data:`ITEM_NUMBER_DIGITS`). A page without a URL does not: nothing says so."""
    if not signals.url or signals.kinds & _ARTICLE_KINDS:
        return False
    parts = urlsplit(signals.url)
    if _ITEM_NUMBER.search(parts.path) or _ITEM_NUMBER.search(parts.query):
        return False
    segments = [segment for segment in parts.path.split("/") if segment]
    if not segments:
        return True
    slug = _FILE_EXTENSION.sub("", segments[-1])
    return len([word for word in _SLUG_SEPARATORS.split(slug) if word]) < ITEM_SLUG_WORDS


#: JSON-LD nodes looked at per page at most (a catalogue can hold thousands).
MAX_JSON_NODES = 500


def _json_nodes(data: object) -> list[dict]:
    """Every JSON object in a JSON-LD document (``@graph`` lists and nesting included)."""
    found: list[dict] = []
    pending = [data]
    while pending and len(found) < MAX_JSON_NODES:
        item = pending.pop()
        if isinstance(item, dict):
            found.append(item)
            pending.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            pending.extend(item)
    return found


def block_features(tokens: TokenSequence, signals: PageSignals = PageSignals()) -> tuple[np.ndarray, np.ndarray]:
    """(line numbers of the page's blocks in document order, feature matrix: one row per block)."""
    word_index = np.flatnonzero(tokens.kinds == WORD)
    if not word_index.size:
        return np.zeros(0, dtype=np.int64), np.zeros((0, len(FEATURE_NAMES)))
    return _Describer(tokens, word_index, signals).table()


class _Describer:
    """Builds the feature table of one page (one job per method; columns appended by name)."""

    def __init__(self, tokens: TokenSequence, word_index: np.ndarray, signals: PageSignals):
        self.tokens = tokens
        self.signals = signals
        self.word_index = word_index
        word_lines = tokens.lines[word_index]
        self.lines, self.block_of_word = np.unique(word_lines, return_inverse=True)
        self.n = self.lines.size
        self.columns: dict[str, np.ndarray] = {}
        # per-word flags, the raw material of most columns (shared with the line scorer)
        self.facts = facts = word_facts(tokens)
        self.words, self.lowered, self.alnum, self.chars, self.stop = (
            facts.words, facts.lowered, facts.alnum, facts.chars, facts.stop)
        self.in_link = tokens.links[word_index]

    @functools.cached_property
    def closing_tokens(self) -> np.ndarray:
        """The first token of every line that opens what follows an article (read by two phases), as the
        trees were fitted on them (:data:`~.boundaries.FEATURES_COUNT_SYMBOLS`)."""
        return closing_lines(self.tokens, count_symbols=FEATURES_COUNT_SYMBOLS)

    def count(self, flags: np.ndarray | None = None, weights: np.ndarray | None = None) -> np.ndarray:
        """Per block: how many of its words have ``flags`` (or the sum of ``weights`` over them)."""
        index = self.block_of_word if flags is None else self.block_of_word[flags]
        if weights is not None and flags is not None:
            weights = weights[flags]
        return np.bincount(index, weights=weights, minlength=self.n).astype(np.float64)

    def table(self) -> tuple[np.ndarray, np.ndarray]:
        self.line_scorer()
        self.text()
        self.dom()
        self.position()
        self.neighbours()
        self.containers()
        self.page()
        # filled column by column (np.column_stack makes each a 2-D array first: twice the cost)
        matrix = np.empty((self.n, len(FEATURE_NAMES)))
        for i, name in enumerate(FEATURE_NAMES):
            matrix[:, i] = self.columns[name]
        return self.lines.astype(np.int64), matrix

    # -- text and links -------------------------------------------------------------------------------

    def line_scorer(self) -> None:
        """The hand-set line scorer's verdict (prose, short or boilerplate) and whether the block lies in
        its title-anchored maximum run bounded by closing lines: the pre-model fallback, tuned on pages of
        2007-2012, as two features the model weighs against the rest."""
        tokens = self.tokens
        scorer = LineScorer()
        first_word = self.word_index[np.concatenate(([0], np.flatnonzero(np.diff(self.block_of_word)) + 1))]
        self.columns["line_class"] = scorer.line_classes(tokens)[tokens.lines[first_word]].astype(np.float64)
        scores = scorer.score(tokens)
        scores[self.closing_tokens] += BOUNDARY_SCORE
        run = max_subsequence(scores)
        in_run = np.zeros(self.n)
        if run is not None:
            run = anchored(run, scores, tokens.anchor)
            inside = (first_word >= run.start) & (first_word < run.end)
            in_run[inside] = 1
        self.columns["line_mss_run"] = in_run

    def text(self) -> None:
        c = self.columns
        words = self.count(self.alnum)
        chars = self.count(weights=self.chars + 1)
        self.block_words, self.block_stop = words, self.count(self.alnum & self.stop)
        self.block_links = self.count(self.alnum & self.in_link)
        symbols = ~self.alnum
        c["words"] = log_count(words)
        c["chars"] = log_count(chars)
        c["stop_share"] = self.block_stop / np.maximum(words, 1)
        c["punct_share"] = self.count(symbols) / np.maximum(words + self.count(symbols), 1)
        ends = self.facts.symbols_in(_SENTENCE_END)
        c["sentence_ends"] = log_count(self.count(ends))
        c["commas"] = log_count(self.count(self.facts.symbols_in(_COMMA)))
        first_chars = list(map(itemgetter(0), self.words))
        digits = np.fromiter(map(str.isdigit, first_chars), bool, len(self.words))
        c["digit_share"] = self.count(digits) / np.maximum(words, 1)
        capitals = np.fromiter(map(str.isupper, first_chars), bool, len(self.words))
        c["capital_share"] = self.count(capitals & self.alnum) / np.maximum(words, 1)
        c["mean_word_chars"] = self.count(self.alnum, self.chars) / np.maximum(words, 1)
        c["link_share"] = self.count(self.in_link, self.chars + 1) / np.maximum(chars, 1)
        tokens = self.tokens
        opens = np.flatnonzero(tokens.kinds == OPEN)
        open_lines = np.searchsorted(self.lines, tokens.lines[opens])
        valid = (open_lines < self.n) & (self.lines[np.minimum(open_lines, self.n - 1)] == tokens.lines[opens])
        is_link = np.fromiter(map("a".__eq__, map(tokens.tags.__getitem__, opens.tolist())), bool, opens.size)
        c["links_per_word"] = np.bincount(open_lines[valid & is_link], minlength=self.n) / np.maximum(words, 1)
        c["inline_tags_per_word"] = np.bincount(open_lines[valid], minlength=self.n) / np.maximum(words, 1)
        last_word = np.concatenate((np.flatnonzero(np.diff(self.block_of_word)), [len(self.words) - 1]))
        c["ends_sentence"] = ends[last_word].astype(np.float64)
        c["copyright"] = (self.count(self.facts.copyright_sign | self.facts.copyright_word) > 0).astype(np.float64)

    # -- the DOM around each block --------------------------------------------------------------------

    def dom(self) -> None:
        c = self.columns
        n = self.n
        lines = self.lines.tolist()
        owners = [self.tokens.line_owners.get(line) for line in lines]
        memo: dict[etree._Element, _ElementFacts] = {}
        siblings: dict[etree._Element, dict[tuple[str, str], int]] = {}
        facts = [_ROOT_FACTS if element is None else _element_facts(element, memo, siblings) for element in owners]
        # the per-element facts are plain tuples; one array per kind of fact, built once for all rows
        masks, seen_at, depth, repeats = zip(*facts)
        seen_at, depth, repeats = (np.array(column, dtype=np.float64) for column in (seen_at, depth, repeats))
        flags = ((np.array(masks)[:, None] >> np.arange(len(ANCESTOR_TAGS))) & 1).astype(np.float64)
        self.owner_tags = [_tag_of(element) for element in owners]
        owner_tag = np.zeros((n, len(OWNER_TAGS) + 1))
        owner_tag[np.arange(n), [_OWNER_COLUMN.get(tag, -1) for tag in self.owner_tags]] = 1
        names = np.minimum(depth[:, None] - seen_at, FAR)
        line_blocks = self.tokens.line_blocks
        for i, t in enumerate(OWNER_TAGS):
            c[f"tag_{t}"] = owner_tag[:, i]
        c["tag_other"] = owner_tag[:, -1]
        c["depth"] = depth
        c["block_depth"] = np.array([len(line_blocks.get(line, ())) for line in lines], dtype=np.float64)
        for i, level in enumerate(("self", "parent", "grand")):
            c[f"repeat_{level}"] = log_count(repeats[:, i])
        for i, t in enumerate(ANCESTOR_TAGS):
            c[f"in_{t}"] = flags[:, i]
        for i, (kind, _) in enumerate(NAME_KINDS):
            c[f"name_{kind}"] = names[:, i]
        for i, (kind, _) in enumerate(ROLE_KINDS):
            c[kind] = names[:, len(NAME_KINDS) + i]

    # -- position and the title -----------------------------------------------------------------------

    def position(self) -> None:
        c = self.columns
        n = self.n
        total_words = max(float(self.block_words.sum()), 1.0)
        c["position"] = (np.cumsum(self.block_words) - self.block_words) / total_words
        c["line_position"] = np.arange(n) / max(n - 1, 1)
        anchor = self.tokens.anchor
        title_rows = np.zeros(n, dtype=bool)
        if anchor >= 0:
            first, last = self.tokens.lines[anchor], self.tokens.lines[int(self.tokens.closes[anchor])]
            title_rows = (self.lines >= first) & (self.lines <= last)
        if title_rows.any():
            row = int(np.flatnonzero(title_rows)[0])
            distance = np.clip(np.arange(n) - row, -MAX_TITLE_DISTANCE, MAX_TITLE_DISTANCE).astype(np.float64)
        else:
            distance = np.full(n, float(MAX_TITLE_DISTANCE + 1))
        c["title_distance"] = distance
        c["is_title"] = title_rows.astype(np.float64)
        c["after_title"] = ((distance > 0) & (distance <= MAX_TITLE_DISTANCE)).astype(np.float64)
        for name, vocabulary in (("title_overlap", self.signals.title), ("description_overlap",
                                  self.signals.description), ("body_overlap", self.signals.body)):
            if vocabulary:
                found = np.fromiter(map(vocabulary.__contains__, self.lowered), bool, len(self.lowered))
                c[name] = self.count(found & self.alnum) / np.maximum(self.block_words, 1)
            else:
                c[name] = np.full(n, -1.0)
        heading = np.fromiter(map(_HEADING_TAGS.__contains__, self.owner_tags), bool, n)
        c["heading_before"] = np.concatenate(([0.0], heading[:-1]))
        # lines that open what follows an article ("12 Comments", "Related posts"): what comes after one
        # is a comment thread or teasers on an article page, the answers on a forum page
        closing = np.zeros(n)
        found = np.searchsorted(self.lines, self.tokens.lines[self.closing_tokens])
        closing[found[found < n]] = 1
        c["is_closing_line"] = closing
        c["closing_before"] = log_count(np.cumsum(closing) - closing)

    # -- neighbours and windows ----------------------------------------------------------------------

    def neighbours(self) -> None:
        c = self.columns
        words = c["words"]
        link = c["link_share"]
        stop = c["stop_share"]
        tags = np.asarray(self.owner_tags, dtype=object)
        same = (tags[1:] == tags[:-1]).astype(np.float64) if self.n > 1 else np.zeros(0)
        for side, shift in (("prev", 1), ("next", -1)):
            c[f"{side}_words"] = _shifted(words, shift, -1.0)
            c[f"{side}_link_share"] = _shifted(link, shift, -1.0)
            c[f"{side}_stop_share"] = _shifted(stop, shift, -1.0)
        c["prev_same_owner_tag"] = np.concatenate(([0.0], same))
        c["next_same_owner_tag"] = np.concatenate((same, [0.0]))
        prose = ((stop >= 0.25) & (self.block_words >= 10) & (link < 0.5)).astype(np.float64)
        for w in WINDOWS:
            c[f"win{w}_words"] = _window_mean(words, w)
            c[f"win{w}_link_share"] = _window_mean(link, w)
            c[f"win{w}_prose"] = _window_mean(prose, w)

    # -- the containers each block sits in ------------------------------------------------------------

    def containers(self) -> None:
        """Text statistics of the block's parent block, its grandparent, and its outermost container
        below ``<body>`` that holds at most half the page (the "section" it belongs to): subtree sums
        over token spans are prefix-sum differences, so this is O(1) per container."""
        tokens = self.tokens
        n_tokens = len(tokens)
        word_flag = np.zeros(n_tokens + 1)
        link_flag = np.zeros(n_tokens + 1)
        stop_flag = np.zeros(n_tokens + 1)
        line_start = np.zeros(n_tokens + 1)
        word_flag[self.word_index[self.alnum] + 1] = 1
        link_flag[self.word_index[self.alnum & self.in_link] + 1] = 1
        stop_flag[self.word_index[self.alnum & self.stop] + 1] = 1
        first_word = np.concatenate(([0], np.flatnonzero(np.diff(self.block_of_word)) + 1))
        line_start[self.word_index[first_word] + 1] = 1
        prefix = {k: np.cumsum(v) for k, v in
                  (("words", word_flag), ("links", link_flag), ("stop", stop_flag), ("lines", line_start))}
        total_words = max(prefix["words"][-1], 1.0)
        closes = tokens.closes
        chains = [tokens.line_blocks.get(line, ()) for line in self.lines.tolist()]

        def span_sums(opens: np.ndarray) -> dict[str, np.ndarray]:
            start = np.where(opens >= 0, opens, 0)
            end = np.where(opens >= 0, closes[np.maximum(opens, 0)] + 1, n_tokens)
            return {k: p[end] - p[start] for k, p in prefix.items()}

        parent = np.array([chain[-2] if len(chain) >= 2 else -1 for chain in chains], dtype=np.int64)
        grand = np.array([chain[-3] if len(chain) >= 3 else -1 for chain in chains], dtype=np.int64)
        # the outermost container holding at most half of the page's words
        top = np.full(self.n, -1, dtype=np.int64)
        all_sums_cache: dict[int, float] = {}
        for row, chain in enumerate(chains):
            for opened in chain:
                share = all_sums_cache.get(opened)
                if share is None:
                    share = all_sums_cache[opened] = (
                        prefix["words"][closes[opened] + 1] - prefix["words"][opened]) / total_words
                if share <= 0.5:
                    top[row] = opened
                    break
        for level, opens in (("parent", parent), ("grand", grand), ("top", top)):
            sums = span_sums(opens)
            words = sums["words"]
            self.columns[f"{level}_words"] = log_count(words)
            self.columns[f"{level}_link_share"] = sums["links"] / np.maximum(words, 1)
            self.columns[f"{level}_stop_share"] = sums["stop"] / np.maximum(words, 1)
            self.columns[f"{level}_lines"] = log_count(sums["lines"])
            self.columns[f"{level}_page_share"] = words / total_words

    # -- the page as a whole ----------------------------------------------------------------------------

    def page(self) -> None:
        c = self.columns
        n = self.n
        total = float(self.block_words.sum())
        c["page_words"] = np.full(n, math.log1p(total))
        c["page_lines"] = np.full(n, math.log1p(n))
        c["page_link_share"] = np.full(n, float(self.block_links.sum()) / max(total, 1))
        c["page_stop_share"] = np.full(n, float(self.block_stop.sum()) / max(total, 1))
        c["page_has_body"] = np.full(n, float(bool(self.signals.body)))
        path = urlsplit(self.signals.url).path if self.signals.url else ""
        c["url_depth"] = np.full(n, float(len([p for p in path.split("/") if p])))
        c["url_digits"] = np.full(n, float(sum(ch.isdigit() for ch in path)))
        kinds = self.signals.kinds
        for kind, members in PAGE_KINDS:
            c[f"page_{kind}"] = np.full(n, float(bool(kinds & members)))


def _shifted(values: np.ndarray, shift: int, fill: float) -> np.ndarray:
    """``values`` moved by ``shift`` rows (1: each row gets its predecessor's value), ``fill`` at the edge."""
    out = np.full(values.shape, fill)
    if shift > 0:
        out[shift:] = values[:-shift]
    else:
        out[:shift] = values[-shift:]
    return out


#: Counts below this take their logarithm from a table (made once, by the C library): a page's counts
#: are nearly all small, and a table look-up costs a fraction of a call per number.
LOG_TABLE_SIZE = 4096


@functools.cache
def _log_table() -> np.ndarray:
    return np.fromiter(map(math.log1p, range(LOG_TABLE_SIZE)), np.float64, LOG_TABLE_SIZE)


def log_count(counts: np.ndarray) -> np.ndarray:
    """log(1 + n) of each count (a non-negative whole number), as the C library's ``log1p`` gives it.

    Not numpy's ``log1p``: on a processor with AVX-512 numpy computes it by other code, which differs in
    the last bit for about 1 % of whole numbers; the same page then had other features there, and the
    trees fitted on them split at other thresholds (the same training gave a model that read products
    three points worse on an Intel Xeon than on an AMD EPYC without AVX-512)."""
    counts = np.asarray(counts, dtype=np.float64)
    large = counts >= LOG_TABLE_SIZE
    out = _log_table()[np.where(large, 0, counts).astype(np.intp)]
    if large.any():
        out[large] = np.fromiter(map(math.log1p, counts[large].tolist()), np.float64)
    return out


def _window_mean(values: np.ndarray, half: int) -> np.ndarray:
    """Mean of ``values`` over each row's window of ``half`` rows either side (fewer at the edges)."""
    prefix = np.concatenate(([0.0], np.cumsum(values)))
    index = np.arange(values.size)
    start = np.maximum(index - half, 0)
    end = np.minimum(index + half + 1, values.size)
    return (prefix[end] - prefix[start]) / (end - start)


#: What :meth:`_Describer.dom` reads of a block's owning element: (which :data:`ANCESTOR_TAGS` it or an
#: ancestor has, bit ``i`` for tag ``i``; the depth at which the nearest element of each name/role kind
#: sits; its own depth; how often it, its parent and its grandparent repeat among their siblings). The
#: distance up to a kind is its depth less that one.
_ElementFacts = tuple[int, tuple[int, ...], int, tuple[int, int, int]]


def _element_facts(element: etree._Element, memo: dict, siblings: dict) -> _ElementFacts:
    """The facts of an element, itself included; memoised per element, each computed from its parent's
    (plain tuples, shared with the parent where nothing changes: a page has thousands of elements, and
    numpy's per-call cost is larger than these few numbers)."""
    chain = []
    current = element
    while current is not None and current not in memo:
        chain.append(current)
        current = current.getparent()
    facts = memo[current] if current is not None else _ROOT_FACTS
    parent = current
    for node in reversed(chain):
        flags, seen_at, depth, repeats = facts
        depth += 1
        tag = _tag_of(node)
        column = _ANCESTOR_COLUMN.get(tag)
        if column is not None:
            flags |= 1 << column
        attributes = _attributes(node)
        kinds = _own_kinds(attributes)
        if kinds:
            found = list(seen_at)
            for kind in kinds:
                found[kind] = depth
            seen_at = tuple(found)
        key = (tag, attributes.get("class") or "")
        repeats = (_sibling_repeats(node, key, parent, siblings), repeats[0], repeats[1])
        facts = memo[node] = (flags, seen_at, depth, repeats)
        parent = node
    return facts


#: An element's attributes are read in one lxml call (cheaper than one per name looked up) when it has at
#: most this many: lxml finds each value by its name, so reading all n of them takes n² steps (an element
#: of 20,000 attributes, which only a hostile page has, took 1.3 s a read; real ones have up to 1,682).
MAX_ATTRIBUTES_READ_AT_ONCE = 64
#: The attributes the facts read (:func:`_own_kinds`, :func:`.clean.is_hidden`, the sibling key).
FACT_ATTRIBUTES = ("id", "class", "role", "itemprop", "hidden", "aria-hidden", "style")


def _attributes(element: etree._Element) -> dict[str, str]:
    """The element's attributes the facts need, as a dict: all of them when there are few."""
    attrib = element.attrib
    if len(attrib) <= MAX_ATTRIBUTES_READ_AT_ONCE:
        return dict(element.items())
    return {name: value for name in FACT_ATTRIBUTES if (value := attrib.get(name)) is not None}


def _sibling_repeats(element: etree._Element, key: tuple[str, str], parent: etree._Element | None,
                     siblings: dict) -> int:
    """How many of an element's siblings (itself included) share its ``key``, its tag and class (0 at the
    root): the items of a listing, the posts of a thread and the cards of a collection repeat one
    structure; a paragraph among paragraphs repeats too, a lone sidebar box does not."""
    if parent is None:
        return 0
    keys = siblings.get(parent)
    if keys is None:
        # an only child repeats once; asked of its neighbours, not len(parent), which walks all the children
        if element.getprevious() is None and element.getnext() is None:
            return 1
        keys = siblings[parent] = {}
        for child in parent:
            child_key = (_tag_of(child), child.get("class") or "")
            keys[child_key] = keys.get(child_key, 0) + 1
    return keys.get(key, 0)


def _tag_of(element: etree._Element | None) -> str:
    """An element's tag ("" for comments, processing instructions and None)."""
    tag = getattr(element, "tag", "")
    return tag if isinstance(tag, str) else ""


#: The facts above the root: no ancestors, no kind ever seen (its depth far enough up that the distance
#: is at least :data:`FAR` from any element), depth 0, no repeats.
_ROOT_FACTS: _ElementFacts = (0, (-FAR,) * (len(NAME_KINDS) + len(ROLE_KINDS)), 0, (0, 0, 0))
_ANCESTOR_COLUMN = {t: i for i, t in enumerate(ANCESTOR_TAGS)}
_OWNER_COLUMN = {t: i for i, t in enumerate(OWNER_TAGS)}
_HIDDEN_COLUMN = len(NAME_KINDS) + len(ROLE_KINDS) - 1


def _own_kinds(attributes: dict[str, str]) -> tuple[int, ...]:
    """Column indices (into the name and role kinds) an element's own ``attributes`` name."""
    if not attributes:
        return ()
    get = attributes.get
    ident, names, role, itemprop = get("id"), get("class"), get("role"), get("itemprop")
    found = _name_kinds(f"{ident or ''} {names or ''}".strip().lower()) if ident or names else ()
    if role or itemprop:
        role, itemprop = (role or "").lower(), (itemprop or "").lower()
        found += tuple(len(NAME_KINDS) + i for i, (_, members) in enumerate(ROLE_KINDS)
                       if role in members or itemprop in members)
    if is_hidden(attributes):
        found += (_HIDDEN_COLUMN,)
    return found


_NAME_CACHE: dict[str, tuple[int, ...]] = {}
#: Distinct id/class strings remembered across pages (sites repeat them; the bound caps memory).
MAX_CACHED_NAMES = 100_000
#: Longer id/class strings are read anew each time, not remembered: the count alone does not bound the
#: memory (a page's 40 class strings of 50 KB each kept 2 MB per page, for good), and real ones are a
#: few dozen characters (a utility-class framework's run to a few hundred).
MAX_CACHED_NAME_CHARS = 1_000


def _name_kinds(names: str) -> tuple[int, ...]:
    found = _NAME_CACHE.get(names)
    if found is None:
        found = _NAME_WORDS.found(names)
        if len(_NAME_CACHE) < MAX_CACHED_NAMES and len(names) <= MAX_CACHED_NAME_CHARS:
            _NAME_CACHE[names] = found
    return found
