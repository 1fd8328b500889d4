"""A generated news site for tests and demos: article pages with navigation, sidebars, ads, share bars,
related links, comments and a footer around the article body — and the article text each page holds.

Everything is generated from a seed, so tests get the same site every time, and nothing third-party is
shipped. Two templates, like real sites: ``story`` (most pages) and ``feature`` (a different layout with
other class names), plus an index page that lists the articles (it has no article of its own).

    site = generate_site(seed=7)
    with serve_site(site) as base_url:      # a real HTTP server on 127.0.0.1
        ...  # GET base_url + site.article_paths[0]
"""
from __future__ import annotations

import contextlib
import html
import http.server
import random
import threading
from dataclasses import dataclass, field
from typing import Iterator

#: Words articles are written in; topics pick a few as their key terms so titles match bodies.
_VOCABULARY = """
city council budget vote housing river bridge school teachers parents students election mayor
harbor ships cargo port workers union strike wages contract museum painting exhibition artist
gallery festival music orchestra concert violin summer winter rainfall drought farmers wheat
harvest market prices railway station commuters delay tunnel engineers storm coast flood rescue
volunteers hospital doctors nurses patients clinic research vaccine laboratory scientists climate
forest wildfire smoke village library books readers archive history century castle tourists
bakery bread flour coffee cafe owners street traffic bicycle lanes safety police court judge
trial witness evidence lawyer verdict appeal stadium team coach season players goal victory
defeat fans ticket league championship garden flowers bees honey orchard apples cider vineyard
""".split()
_FILLER = """the a of to and in that for on with as by from at about after before during while
because although since their its this those these over under between among through""".split()
_AUTHORS = ["Ada Brook", "Lena Ortiz", "Sam Okafor", "Mira Castell", "Tom Ilves", "June Park"]
_SECTIONS = ["News", "City", "Culture", "Science", "Sport", "Opinion", "Weather"]


@dataclass
class SamplePage:
    """One page of the site: its path, HTML, and the article text (empty for pages without one)."""

    path: str
    html: str
    title: str
    article: list[str] = field(default_factory=list)
    template: str = "story"

    @property
    def truth(self) -> str:
        return "\n".join(self.article)


@dataclass
class SampleSite:
    """A generated site: pages by path."""

    name: str
    pages: dict[str, SamplePage]

    @property
    def article_paths(self) -> list[str]:
        return [path for path, page in self.pages.items() if page.article]


class _Writer:
    """Seeded text: sentences around a topic, headlines, comments."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def sentence(self, topic: list[str], length: tuple[int, int] = (9, 22)) -> str:
        words = []
        for _ in range(self.rng.randint(*length)):
            pool = topic if self.rng.random() < 0.3 else (_FILLER if self.rng.random() < 0.45 else _VOCABULARY)
            words.append(self.rng.choice(pool))
        return words[0].capitalize() + " " + " ".join(words[1:]) + "."

    def paragraph(self, topic: list[str]) -> str:
        return " ".join(self.sentence(topic) for _ in range(self.rng.randint(2, 5)))

    def headline(self, topic: list[str]) -> str:
        words = [self.rng.choice(topic) for _ in range(3)] + [self.rng.choice(_VOCABULARY) for _ in range(3)]
        self.rng.shuffle(words)
        return " ".join(words).capitalize()


_STYLE = """
body { margin: 0; font-family: Georgia, serif; color: #222; background: #fafafa; }
.masthead { background: #123; color: #fff; padding: 12px 24px; font-family: Arial, sans-serif; }
.masthead a { color: #fff; margin-right: 14px; text-decoration: none; font-size: 14px; }
.layout { display: flex; max-width: 1100px; margin: 0 auto; }
.main { flex: 3; padding: 24px; background: #fff; }
.rail { flex: 1; padding: 24px; font-family: Arial, sans-serif; font-size: 13px; color: #555; }
.story h1, .feature-head h1 { font-size: 34px; line-height: 40px; margin: 0 0 8px; }
.byline { font-family: Arial, sans-serif; font-size: 12px; color: #888; text-transform: uppercase; }
.story-body p, .feature-text p { font-size: 18px; line-height: 28px; margin: 0 0 18px; }
.story-body h2, .feature-text h3 { font-size: 22px; margin: 26px 0 10px; }
.story-body blockquote, .feature-text blockquote { font-style: italic; border-left: 4px solid #c33;
  margin: 18px 0; padding-left: 16px; font-size: 20px; }
.story-body li, .feature-text li { font-size: 17px; line-height: 26px; }
.share { font-family: Arial, sans-serif; font-size: 12px; color: #06c; margin: 12px 0; }
.ad { background: #eee; color: #999; font-family: Arial, sans-serif; font-size: 11px; padding: 20px;
  text-align: center; margin: 18px 0; }
.caption { font-size: 13px; color: #666; font-family: Arial, sans-serif; }
.related { border-top: 1px solid #ddd; margin-top: 24px; font-family: Arial, sans-serif; font-size: 14px; }
.comments { margin-top: 32px; font-family: Arial, sans-serif; font-size: 14px; color: #444; }
.comment { border-bottom: 1px solid #eee; padding: 8px 0; }
.footer { background: #222; color: #aaa; padding: 24px; font-family: Arial, sans-serif; font-size: 12px; }
.hidden-promo { display: none; }
.feature-head { background: #f4efe6; padding: 32px; }
.feature-text { max-width: 680px; margin: 0 auto; font-family: 'Palatino Linotype', serif; }
"""


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _page_shell(title: str, description: str, body: str, canonical: str) -> str:
    nav = "".join(f'<a href="/section/{s.lower()}">{s}</a>' for s in _SECTIONS)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{_esc(title)} | The Sample Gazette</title>
<meta name="description" content="{_esc(description)}">
<meta property="og:title" content="{_esc(title)}">
<link rel="canonical" href="{_esc(canonical)}">
<style>{_STYLE}</style></head>
<body>
<header class="masthead"><div class="brand">The Sample Gazette</div><nav class="primary-nav">{nav}</nav></header>
<div class="hidden-promo">Subscribe now for unlimited access to every story</div>
{body}
<footer class="footer"><p>© The Sample Gazette. All rights reserved.</p>
<p><a href="/about">About us</a> <a href="/privacy">Privacy policy</a> <a href="/contact">Contact</a></p></footer>
</body></html>"""


def _rail(writer: _Writer, rng: random.Random) -> str:
    popular = "".join(f'<li><a href="/story/{rng.randint(100, 999)}">{_esc(writer.headline(rng.sample(_VOCABULARY, 3)))}</a></li>'
                      for _ in range(5))
    return (f'<aside class="rail"><h3>Most read</h3><ol class="popular">{popular}</ol>'
            f'<div class="ad ad-rail">Advertisement: the finest umbrellas in town, forty percent off this week</div>'
            f'<div class="newsletter"><p>Get the morning briefing in your inbox every day.</p></div></aside>')


def _comments(writer: _Writer, rng: random.Random, topic: list[str]) -> str:
    items = "".join(
        f'<div class="comment"><span class="who">{_esc(rng.choice(_AUTHORS).split()[0].lower())}{rng.randint(1, 99)}</span>'
        f'<p>{_esc(writer.sentence(topic, (6, 14)))}</p></div>'
        for _ in range(rng.randint(2, 5))
    )
    return f'<section class="comments" id="comments"><h3>Comments</h3>{items}</section>'


def _related(writer: _Writer, rng: random.Random) -> str:
    links = "".join(f'<li><a href="/story/{rng.randint(100, 999)}">{_esc(writer.headline(rng.sample(_VOCABULARY, 3)))}</a></li>'
                    for _ in range(3))
    return f'<div class="related"><h4>Related stories</h4><ul>{links}</ul></div>'


def _body_parts(writer: _Writer, rng: random.Random, topic: list[str], subhead_tag: str) -> tuple[list[str], list[str]]:
    """(HTML parts, article lines) of an article body with paragraphs, a sub-heading, a quote and a list."""
    parts: list[str] = []
    lines: list[str] = []
    count = rng.randint(5, 9)
    for index in range(count):
        paragraph = writer.paragraph(topic)
        parts.append(f"<p>{_linkify(paragraph, rng)}</p>")
        lines.append(paragraph)
        if index == 1:
            parts.append('<div class="ad ad-inline">Advertisement: compare energy plans and save today</div>')
        if index == count // 2:
            subhead = writer.headline(topic)
            quote = writer.sentence(topic)
            parts.append(f"<{subhead_tag}>{_esc(subhead)}</{subhead_tag}><blockquote>{_esc(quote)}</blockquote>")
            lines += [subhead, quote]
            if rng.random() < 0.6:
                items = [writer.sentence(topic, (4, 8)) for _ in range(3)]
                parts.append("<ul>" + "".join(f"<li>{_esc(i)}</li>" for i in items) + "</ul>")
                lines += items
    return parts, lines


def _linkify(paragraph: str, rng: random.Random) -> str:
    """Escape a paragraph and turn one or two of its words into inline links or emphasis, as articles do."""
    words = [_esc(w) for w in paragraph.split(" ")]
    for _ in range(rng.randint(0, 2)):
        i = rng.randrange(len(words))
        words[i] = f'<a href="/topic/{rng.randint(1, 50)}">{words[i]}</a>' if rng.random() < 0.6 else f"<em>{words[i]}</em>"
    return " ".join(words)


def _story(writer: _Writer, rng: random.Random, topic: list[str], canonical: str) -> SamplePage:
    title = writer.headline(topic)
    parts, lines = _body_parts(writer, rng, topic, "h2")
    caption = writer.sentence(topic, (5, 9))
    story_id = rng.randint(10000, 99999)
    byline = f"By {rng.choice(_AUTHORS)} · {rng.randint(1, 28)} March"
    body = (
        f'<div class="layout"><main class="main"><article class="story" id="story-{story_id}">'
        f"<h1>{_esc(title)}</h1>"
        f'<div class="byline">{_esc(byline)}</div>'
        f'<div class="share">Share on social · Email · Print</div>'
        f'<figure><div class="photo" style="height:120px;background:#ccd"></div>'
        f'<figcaption class="caption">{_esc(caption)}</figcaption></figure>'
        f'<div class="story-body">{"".join(parts)}</div>'
        f"{_related(writer, rng)}</article>"
        f"{_comments(writer, rng, topic)}</main>{_rail(writer, rng)}</div>"
    )
    description = lines[0].split(". ")[0]
    return SamplePage(canonical, _page_shell(title, description, body, canonical), title, [title, byline] + lines, "story")


def _feature(writer: _Writer, rng: random.Random, topic: list[str], canonical: str) -> SamplePage:
    title = writer.headline(topic)
    standfirst = writer.sentence(topic)
    parts, lines = _body_parts(writer, rng, topic, "h3")
    byline = f"Words by {rng.choice(_AUTHORS)}"
    body = (
        f'<section class="feature"><div class="feature-head"><h1>{_esc(title)}</h1>'
        f'<p class="standfirst">{_esc(standfirst)}</p>'
        f'<div class="byline">{_esc(byline)}</div></div>'
        f'<div class="feature-text">{"".join(parts)}</div>'
        f'<div class="share">Share this feature</div></section>'
        f'<div class="layout"><main class="main">{_comments(writer, rng, topic)}</main>{_rail(writer, rng)}</div>'
    )
    return SamplePage(canonical, _page_shell(title, standfirst, body, canonical), title, [title, standfirst, byline] + lines, "feature")


def _index(pages: list[SamplePage], writer: _Writer, rng: random.Random) -> SamplePage:
    teasers = "".join(
        f'<div class="teaser"><h2><a href="{_esc(p.path)}">{_esc(p.title)}</a></h2><p>{_esc(p.article[1][:90])}…</p></div>'
        for p in pages
    )
    body = f'<div class="layout"><main class="main front">{teasers}</main>{_rail(writer, rng)}</div>'
    return SamplePage("/", _page_shell("Front page", "Today's news", body, "/"), "Front page", [], "index")


def generate_site(seed: int = 7, stories: int = 10, features: int = 4, name: str = "gazette") -> SampleSite:
    """A site of ``stories`` story pages, ``features`` feature pages and an index, from ``seed``."""
    rng = random.Random(seed)
    writer = _Writer(rng)
    pages: list[SamplePage] = []
    for number in range(stories + features):
        topic = rng.sample(_VOCABULARY, 4)
        kind = "feature" if number >= stories else "story"
        path = f"/{kind}/{2024 + number % 2}/{number + 1:03d}-{'-'.join(topic[:2])}.html"
        pages.append((_feature if kind == "feature" else _story)(writer, rng, topic, path))
    # Interleave the templates, as a site's archive would.
    rng.shuffle(pages)
    everything = {p.path: p for p in pages}
    everything["/"] = _index(pages, writer, rng)
    return SampleSite(name, everything)


class _Handler(http.server.BaseHTTPRequestHandler):
    site: SampleSite

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        page = self.site.pages.get(self.path.split("?")[0])
        body = (page.html if page else "<!DOCTYPE html><title>Not found</title><p>Not found</p>").encode("utf-8")
        self.send_response(200 if page else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # tests and demos should not print a line per request


@contextlib.contextmanager
def serve_site(site: SampleSite, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve the site over HTTP on loopback (a free port unless given); yields the base URL."""
    handler = type("SampleSiteHandler", (_Handler,), {"site": site})
    server = http.server.ThreadingHTTPServer((host, port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
