"""The article extractors people use, behind sitewise's :class:`~sitewise.extractors.Extractor` protocol.

Each peer reads the served HTML alone (``needs_page = False``) and needs no training (``per_site =
False``); it is called the way its documentation recommends for main-text extraction, and ``call``
records exactly how, for the benchmark report. Peers are optional (``pip install 'sitewise[bench]'``):
the library is imported when the adapter is created, so a missing one raises :class:`PeerMissing`,
which the benchmark reports as skipped. Every peer's output goes through one normalisation (one block
per line, whitespace collapsed, no blank lines) so that no peer gains or loses from its line format.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import re
from types import ModuleType
from typing import Any, Sequence

from ..extractors import Document

#: HTML elements that start a new line of text when an HTML fragment is flattened (readability-lxml
#: returns HTML; without line breaks at block boundaries the words of adjacent paragraphs would fuse).
BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section table td th tr ul".split()
)

_SPACES = re.compile(r"[^\S\n]+")
_BODY = re.compile(r"<body[\s>]", re.IGNORECASE)


class PeerMissing(ImportError):
    """The peer's library is not installed."""


class Peer:
    """What every peer shares: single-page, raw HTML in, normalised text out, nothing to fit."""

    name: str = ""
    #: The PyPI distribution that provides the peer (for the version in reports).
    distribution: str = ""
    #: The module imported to use it.
    module: str = ""
    #: How the peer is called, as shown in the benchmark report.
    call: str = ""
    needs_page = False
    per_site = False

    def __init__(self) -> None:
        try:
            self.library: ModuleType = importlib.import_module(self.module)
        except ImportError as exc:
            raise PeerMissing(
                f"{self.name} needs the {self.distribution!r} package: pip install 'sitewise[bench]' ({exc})"
            ) from exc

    def fit(self, documents: Sequence[Document]) -> "Peer":
        return self

    def extract(self, document: Document) -> str:
        if not document.html:
            return ""
        return normalise(self.extract_html(document.html, document.url) or "")

    def extract_html(self, html: str, url: str | None) -> str | None:
        raise NotImplementedError


class Trafilatura(Peer):
    name, distribution, module = "trafilatura", "trafilatura", "trafilatura"
    # Comments are not main text in any of the truth sets; trafilatura keeps them by default.
    call = "trafilatura.extract(html, url=url, include_comments=False)"

    def extract_html(self, html: str, url: str | None) -> str | None:
        return self.library.extract(html, url=url, include_comments=False)


class ReadabilityLxml(Peer):
    name, distribution, module = "readability-lxml", "readability-lxml", "readability"
    call = "readability.Document(html, url=url).summary(html_partial=True), flattened to text"

    def extract_html(self, html: str, url: str | None) -> str | None:
        return html_text(self.library.Document(html, url=url).summary(html_partial=True))


class JusText(Peer):
    name, distribution, module = "justext", "jusText", "justext"
    call = 'justext.justext(html, justext.get_stoplist("English")), paragraphs not boilerplate'

    def __init__(self) -> None:
        super().__init__()
        # The sets are English apart from spider (which has no HTML); jusText needs a stop list.
        self.stoplist = self.library.get_stoplist("English")

    def extract_html(self, html: str, url: str | None) -> str | None:
        paragraphs = self.library.justext(html, self.stoplist)
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


class Boilerpy3(Peer):
    name, distribution, module = "boilerpy3", "boilerpy3", "boilerpy3.extractors"
    call = (
        "boilerpy3.extractors.ArticleExtractor(raise_on_failure=False).get_content(html); a page without "
        "<body> is wrapped in <html><body> first"
    )

    def __init__(self) -> None:
        super().__init__()
        # Its documentation: raising is for callers with another algorithm to fall back to; used on its
        # own, it should return what it extracted before its parser tripped (on unbalanced end tags).
        self.extractor = self.library.ArticleExtractor(raise_on_failure=False)

    def extract_html(self, html: str, url: str | None) -> str | None:
        # boilerpy3 reads only the text inside <body>: on a body-less fragment (170 of CleanEval's
        # inputs) it returns nothing at all, which would measure the input's packaging, not the extractor.
        if not _BODY.search(html):
            html = f"<html><body>{html}</body></html>"
        return self.extractor.get_content(html)


class Resiliparse(Peer):
    name, distribution, module = "resiliparse", "resiliparse", "resiliparse.extract.html2text"
    call = "resiliparse.extract.html2text.extract_plain_text(html, main_content=True)"

    def extract_html(self, html: str, url: str | None) -> str | None:
        return self.library.extract_plain_text(html, main_content=True)


class Goose3(Peer):
    name, distribution, module = "goose3", "goose3", "goose3"
    call = 'goose3.Goose({"enable_image_fetching": False}).extract(raw_html=html, url=url).cleaned_text'

    def __init__(self) -> None:
        super().__init__()
        # One instance for all pages, as its documentation shows; with raw_html it fetches nothing.
        self.goose: Any = self.library.Goose({"enable_image_fetching": False})

    def extract_html(self, html: str, url: str | None) -> str | None:
        return self.goose.extract(raw_html=html, url=url).cleaned_text


class Newspaper4k(Peer):
    name, distribution, module = "newspaper4k", "newspaper4k", "newspaper"
    call = "a = newspaper.Article(url, fetch_images=False); a.download(input_html=html); a.parse(); a.text"

    def extract_html(self, html: str, url: str | None) -> str | None:
        article = self.library.Article(url or "", fetch_images=False)
        article.download(input_html=html)
        article.parse()
        return article.text


def html_text(fragment: str) -> str:
    """The text of an HTML fragment, one line per block element."""
    import lxml.html

    if not fragment.strip():
        return ""
    root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.lower() in BLOCK_TAGS:
            element.tail = "\n" + (element.tail or "")
            element.text = "\n" + (element.text or "")
    return root.text_content()


def normalise(text: str) -> str:
    """One block per line, runs of spaces collapsed, blank lines dropped."""
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


#: Every peer by registry name, in the order reports list them.
PEERS: dict[str, type[Peer]] = {
    peer.name: peer for peer in (Trafilatura, ReadabilityLxml, JusText, Boilerpy3, Resiliparse, Goose3, Newspaper4k)
}


def peer_version(name: str) -> str | None:
    """Installed version of a peer's distribution, or None when it is not installed."""
    try:
        return importlib.metadata.version(PEERS[name].distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
