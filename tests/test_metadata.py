"""A page's metadata from JSON-LD, Open Graph, <meta> names and the visible page, in that order."""
from __future__ import annotations

import pytest

from sitewise.metadata import Metadata, read_metadata

JSON_LD = """<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
  {"@type": "WebSite", "name": "The Gazette"},
  {"@type": ["NewsArticle"], "headline": "Harbor strike ends", "datePublished": "2024-05-01T09:30:00Z",
   "author": [{"@type": "Person", "name": "Ada Brook"}, {"@type": "Person", "name": "Sam Okafor"}],
   "inLanguage": "en-GB", "description": "The port reopens."}]}</script>"""


def page(head: str = "", body: str = "", lang: str = "") -> str:
    return f"<html{f' lang={lang!r}' if lang else ''}><head>{head}</head><body>{body}</body></html>"


def test_json_ld_comes_first():
    html = page(JSON_LD + '<meta property="og:title" content="Strike over | Gazette"><title>Other</title>', lang="fr")
    assert read_metadata(html) == Metadata(
        title="Harbor strike ends", author="Ada Brook, Sam Okafor", date="2024-05-01T09:30:00+00:00",
        language="fr", site_name=None, description="The port reopens.",
    )


@pytest.mark.parametrize("json_ld", [
    '{"@type": "https://schema.org/NewsArticle", "headline": "Harbor strike ends", "author": "Ada Brook"}',
    '{"@context": {"schema": "https://schema.org/"}, "@type": "schema:NewsArticle", "headline": "Harbor strike ends",'
    ' "author": "Ada Brook"}',
    '{"@type": "WebPage", "name": "Gazette", "mainEntity": {"@type": "NewsArticle", "headline": "Harbor strike ends",'
    ' "author": {"@type": "Person", "name": "Ada Brook"}}}',
    '{"@graph": [{"@type": "WebPage", "mainEntity": [{"@type": "Article", "headline": "Harbor strike ends",'
    ' "author": "Ada Brook"}]}]}',
])
def test_json_ld_article_spelled_in_full_or_as_a_pages_main_entity(json_ld):
    found = read_metadata(page(f'<script type="application/ld+json">{json_ld}</script><title>Other</title>'))
    assert (found.title, found.author) == ("Harbor strike ends", "Ada Brook")


def test_open_graph_and_meta_names():
    html = page(
        '<meta property="og:title" content="  Harbor   strike ends ">'
        '<meta property="og:site_name" content="The Gazette">'
        '<meta property="article:author" content="https://facebook.com/ada">'  # a profile URL names no one
        '<meta name="byl" content="By Ada Brook">'
        '<meta property="article:published_time" content="2024-05-01">'
        '<meta property="og:locale" content="pt_BR">'
        '<meta name="description" content="The port reopens.">'
        "<title>Harbor strike ends - The Gazette</title>"
    )
    assert read_metadata(html) == Metadata(
        title="Harbor strike ends", author="Ada Brook", date="2024-05-01", language="pt-BR",
        site_name="The Gazette", description="The port reopens.",
    )


def test_the_visible_page_when_nothing_else_says():
    html = page(
        "<title>Harbor strike ends</title>",
        '<h1>Headline</h1><a rel="author" href="/ada">Ada Brook</a><time datetime="1 May 2024">May 1</time>',
        lang="en",
    )
    found = read_metadata(html)
    assert (found.title, found.author, found.date, found.language) == ("Harbor strike ends", "Ada Brook", "1 May 2024", "en")
    assert read_metadata(page(body="<h1>Only a headline</h1>")).title == "Only a headline"


def test_the_visible_page_is_read_past_elements_without_text():
    # a <link rel=author> in the head (no text) before the byline's link, a logo's <h1> holding an image,
    # and an inline SVG icon's <title> on a page (an article's HTML fragment) without a <title> of its own
    html = page(
        '<link rel="author" href="/humans.txt">',
        '<svg><title>Share</title></svg><h1 class="logo"><img alt="The Gazette"></h1><article><h1>Harbor strike ends</h1>'
        '<p>By <a rel="author external" href="/ada">Ada Brook</a></p></article>',
    )
    found = read_metadata(html)
    assert (found.title, found.author) == ("Harbor strike ends", "Ada Brook")


@pytest.mark.parametrize(
    "html",
    [
        "",
        "not html at all",
        '<script type="application/ld+json">{broken</script><script type="application/ld+json">[1, "x", null]</script>',
        '<meta name="author" content="">',
    ],
)
def test_broken_or_missing_metadata_is_none(html):
    assert read_metadata(html) == Metadata()


def test_html_entities_in_json_ld_are_decoded_once_and_meta_values_not_again():
    """WordPress (Yoast) escapes its JSON-LD as HTML; the parser has already decoded attribute values."""
    html = page(
        '<script type="application/ld+json">{"@type": "BlogPosting", "headline": "Budget Traveler&#8217;s Guide &amp; Tips",'
        ' "author": {"@type": "Person", "name": "Ada &amp; Sam"}, "description": "Fish &amp;amp; chips"}</script>'
        '<meta property="og:site_name" content="Fish &amp;amp; Chips Weekly">'
    )
    found = read_metadata(html)
    assert found.title == "Budget Traveler\u2019s Guide & Tips" and found.author == "Ada & Sam"
    assert found.description == "Fish &amp; chips"  # decoded once: the publisher escaped an "&amp;"
    assert found.site_name == "Fish &amp; Chips Weekly"  # the parser decoded the attribute: not again
