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
        title="Harbor strike ends", author="Ada Brook; Sam Okafor", date="2024-05-01T09:30:00+00:00",
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


@pytest.mark.parametrize("head, image", [
    # the article's JSON-LD first: an address, an ImageObject, a reference to one, a list's first
    ('<script type="application/ld+json">{"@type": "NewsArticle", "image": "/img/ld.jpg"}</script>'
     '<meta property="og:image" content="https://cdn.test/og.jpg">', "https://news.test/img/ld.jpg"),
    ('<script type="application/ld+json">{"@type": "NewsArticle", "image": {"@type": "ImageObject",'
     ' "contentUrl": "https://cdn.test/object.jpg"}}</script>', "https://cdn.test/object.jpg"),
    ('<script type="application/ld+json">{"@graph": [{"@type": "NewsArticle", "image": {"@id": "#lead"}},'
     ' {"@type": "ImageObject", "@id": "#lead", "url": "https://cdn.test/lead.jpg"}]}</script>', "https://cdn.test/lead.jpg"),
    ('<script type="application/ld+json">{"@type": "NewsArticle", "image": [{"url": "https://cdn.test/16x9.jpg"},'
     ' "https://cdn.test/4x3.jpg"]}</script>', "https://cdn.test/16x9.jpg"),
    # then Open Graph, Twitter, link rel=image_src; a data: picture passes to the next source
    ('<meta property="og:image" content="data:image/png;base64,iVBOR">'
     '<meta name="twitter:image" content="//cdn.test/card (1).jpg">', "https://cdn.test/card%20%281%29.jpg"),
    ('<link rel="image_src" href="thumb.png">', "https://news.test/2024/thumb.png"),
    ('<meta property="og:image" content="javascript:alert(1)">', None),
])
def test_the_picture_for_previews(head, image):
    assert read_metadata(page(head), url="https://news.test/2024/strike").image == image


def test_a_relative_picture_without_the_pages_url_is_none():
    assert read_metadata(page('<meta property="og:image" content="/img/card.jpg">')).image is None
    assert read_metadata(page('<meta property="og:image" content="https://cdn.test/c.jpg">')).image == "https://cdn.test/c.jpg"


def test_the_visible_page_when_nothing_else_says():
    html = page(
        "<title>Harbor strike ends</title>",
        '<h1>Headline</h1><a rel="author" href="/ada">Ada Brook</a><time datetime="1 May 2024">May 1</time>',
        lang="en",
    )
    found = read_metadata(html)
    assert (found.title, found.author, found.date, found.language) == ("Harbor strike ends", "Ada Brook", "2024-05-01", "en")
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


# -- date --------------------------------------------------------------------------------------------


def json_ld(data: str) -> str:
    return f'<script type="application/ld+json">{data}</script>'


@pytest.mark.parametrize("head, date", [
    (json_ld('{"@type": "NewsArticle", "dateModified": "2024-06-01", "datePublished": "2024-05-07"}'), "2024-05-07"),
    (json_ld('{"@type": "NewsArticle", "dateCreated": "2024-05-07T10:00:00+02:00"}'), "2024-05-07T10:00:00+02:00"),
    (json_ld('{"@type": "NewsArticle", "datePublished": ["2024-05-07", "2024-05-08"]}'), "2024-05-07"),
    # when the page says only when it was modified, it does not say when it was published
    (json_ld('{"@type": "NewsArticle", "dateModified": "2024-06-01"}') + '<meta property="og:updated_time" '
     'content="2024-06-01"><meta property="article:modified_time" content="2024-06-01">', None),
    ('<meta property="article:published_time" content="2024-05-07T10:00:00-04:00">', "2024-05-07T10:00:00-04:00"),
    ('<meta name="sailthru.date" content="2024-05-07 10:00:00">', "2024-05-07T10:00:00"),  # no zone given, none made up
    ('<meta name="parsely-pub-date" content="2024-05-07T10:00:00Z">', "2024-05-07T10:00:00+00:00"),
    ('<meta name="DC.date.issued" content="2024-05-07">', "2024-05-07"),
    ('<meta name="pubdate" content="Tue, 07 May 2024 10:00:00 GMT">', "2024-05-07T10:00:00+00:00"),
    ('<meta name="date" content="May 7, 2024">', "2024-05-07"),
])
def test_the_publication_date_normalised_to_iso_8601(head, date):
    assert read_metadata(page(head)).date == date


def test_a_date_more_than_a_day_after_the_urls_day_is_when_the_page_was_changed_or_served():
    head = '<meta name="date" content="July 31, 2012, 2:30 pm">'
    assert read_metadata(page(head), "https://news.test/_news/2012/07/23/1290-lungs").date == "2012-07-23"
    assert read_metadata(page(head), "https://news.test/_news/2012/07/30/1290-lungs").date == "2012-07-31"  # UTC's next day
    assert read_metadata(page(head), "https://news.test/_news/2012/13/40/1290-lungs").date == "2012-07-31"  # no day


@pytest.mark.parametrize("value, date", [
    ("2024/05/07", "2024-05-07"),  # year first: no one writes year, day, month
    ("2024-05-07t10:00:00z", "2024-05-07T10:00:00+00:00"),
    ("2024-05-07 10:00:00 +02:00", "2024-05-07T10:00:00+02:00"),
    ("2024-05-07T10:00:00 UTC", "2024-05-07T10:00:00+00:00"),
    ("2024-05-07 10:00:00 GMT", "2024-05-07T10:00:00+00:00"),
    ("Tuesday, May 7, 2024", "2024-05-07"),
    ("Tue 7 May 2024", "2024-05-07"),
    ("May 7th, 2024", "2024-05-07"),
    ("December 2nd, 2025", "2025-12-02"),
    ("21st March 2024", "2024-03-21"),
    ("July 24, 2012 4:00 AM PDT", "2012-07-24"),  # a time after the day: the day is kept
    ("Tuesday July 24, 2012 @07:29AM", "2012-07-24"),
    ("24 July 2012, 16:05", "2012-07-24"),
    ("7. Mai 2024 um 10:00 Uhr", "2024-05-07"),
    ("7 mai 2024 à 10h00", "2024-05-07"),
])
def test_a_day_written_as_pages_write_it(value, date):
    assert read_metadata(page(f'<meta name="date" content="{value}">')).date == date
    assert read_metadata(page(body=f"<article><time>{value}</time></article>")).date == date


@pytest.mark.parametrize("value", [
    "7. Mai 2024", "Dienstag, 7. Mai 2024", "Di., 7. Mai 2024", "7 mai 2024", "mardi 7 mai 2024",
    "7 de mayo de 2024", "martes, 7 de mayo del 2024", "7 maggio 2024", "7 de maio de 2024", "7 mei 2024",
    "7 maj 2024", "7. maj 2024", "7 maja 2024", "7. května 2024", "7 Mayıs 2024", "7 MAYIS 2024", "MAY 7, 2024",
])
def test_a_day_written_out_in_another_language(value):
    assert read_metadata(page(f'<meta name="date" content="{value}">')).date == "2024-05-07"
    assert read_metadata(page(body=f"<article><time>{value}</time></article>")).date == "2024-05-07"


@pytest.mark.parametrize("value, date", [
    ("7. Okt. 2024", "2024-10-07"), ("7. Mrz. 2024", "2024-03-07"), ("7 janv. 2024", "2024-01-07"),
    ("7 juil. 2024", "2024-07-07"), ("1er mai 2024", "2024-05-01"), ("1º de maio de 2024", "2024-05-01"),
    ("7 mrt 2024", "2024-03-07"), ("7 czerwca 2024", "2024-06-07"), ("7. července 2024", "2024-07-07"),
    ("Dec 19th 2025", "2025-12-19"), ("Fri 19 December, 2025", "2025-12-19"), ("Jul. 06, 2004", "2004-07-06"),
])
def test_a_month_abbreviated_or_inflected_and_commas_as_pages_place_them(value, date):
    assert read_metadata(page(f'<meta name="date" content="{value}">')).date == date


@pytest.mark.parametrize("value", [
    "05/07/2024",  # 5 July or 7 May?
    "yesterday", "2024-13-45", "1715076000000", "0000-00-00 00:00:00", "2024-W19", "2024",
    "0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z",  # a CMS's "no date": Go's zero time, Unix time 0
    "9999-12-31",  # "never", and no publication date is in the future
    "2024/13/45", "Monday", "May 32nd, 2024", "2024-05-07 10:00:00 CEST",  # an abbreviated zone says no offset
    "7 jui 2024",  # juin or juillet?
    "31 juin 2024", "Published 7 May 2024", "On 7 May 2024", "7 Mayday 2024", "7 Ma 2024",
])
def test_a_date_that_is_no_readable_day_is_none_and_the_next_source_is_read(value):
    assert read_metadata(page(f'<meta name="date" content="{value}">')).date is None
    html = page(json_ld(f'{{"@type": "NewsArticle", "datePublished": "{value}"}}')
                + '<meta property="article:published_time" content="2024-05-07">')
    assert read_metadata(html).date == "2024-05-07"


def test_the_articles_time_not_a_related_storys():
    related = '<aside><h2>Related</h2><time datetime="2020-01-01">Jan 1</time></aside>'
    html = page(body=f'{related}<article><h1>Harbor strike ends</h1><time datetime="2024-05-07">May 7</time></article>')
    assert read_metadata(html).date == "2024-05-07"
    microdata = page(body=f'{related}<p>Published <span itemprop="datePublished">2024-05-07</span></p>')
    assert read_metadata(microdata).date == "2024-05-07"
    # several <time> and none the article's: none is known to be its date
    assert read_metadata(page(body=f'{related}<div><time datetime="2024-05-07">May 7</time></div>')).date is None


def test_the_date_in_the_url():
    html = page(body='<aside><time datetime="2020-01-01">Jan 1</time></aside><time datetime="2021-02-02">x</time>')
    assert read_metadata(html, url="https://gazette.test/news/2024/05/07/strike-ends/").date == "2024-05-07"
    assert read_metadata(page(), url="https://gazette.test/2024/13/07/strike").date is None
    assert read_metadata(page(), url="https://gazette.test/news/strike?d=2024/05/07/").date is None


# -- author ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("head, author", [
    (json_ld('{"@type": "NewsArticle", "author": [{"@type": "Person", "name": "Jane Doe"}, {"name": "John Roe"},'
             ' {"name": "Jane Doe"}]}'), "Jane Doe; John Roe"),
    # Yoast and others name the author by reference into the graph
    (json_ld('{"@graph": [{"@type": "Article", "author": [{"@id": "#jane"}, {"@type": "Person", "@id": "#john"}]},'
             ' {"@type": "Person", "@id": "#jane", "name": "Jane Doe"},'
             ' {"@type": "Person", "@id": "#john", "name": "John Roe"}]}'),
     "Jane Doe; John Roe"),
    # a Person named by its parts, as schema.org allows
    (json_ld('{"@type": "NewsArticle", "author": [{"@type": "Person", "givenName": "Jane", "familyName": "Doe"},'
             ' {"@type": "Person", "givenName": "John", "additionalName": "Q.", "familyName": "Roe"}]}'),
     "Jane Doe; John Q. Roe"),
    # the publisher named as author is not one: the byline's name is
    (json_ld('{"@type": "NewsArticle", "author": {"@type": "Organization", "name": "The Gazette"},'
             ' "publisher": {"@type": "Organization", "name": "The Gazette"}}') + '<meta name="author" content="Jane Doe">',
     "Jane Doe"),
    (json_ld('{"@type": "NewsArticle", "author": {"@type": "Organization", "name": "Reuters"},'
             ' "publisher": {"name": "The Gazette"}}'), "Reuters"),  # a news agency is
    (json_ld('{"@type": "NewsArticle", "author": "<a href=\\"/jane\\">By Jane Doe</a>"}'), "Jane Doe"),
    (json_ld('{"@type": "NewsArticle", "author": "&lt;b&gt;Jane Doe&lt;/b&gt;"}'), "Jane Doe"),
    # a handle or a profile URL names no one readable: the byline does
    ('<meta name="author" content="@janedoe"><meta name="parsely-author" content="www.x.test/janedoe">'
     '<meta name="byl" content="By Jane Doe and John Roe">', "Jane Doe; John Roe"),
    # a value no name is as long as (a bio, the page's text) is no author
    (json_ld('{"@type": "NewsArticle", "author": "' + "Jane Doe writes about the harbour. " * 20 + '"}')
     + '<meta name="author" content="Jane Doe">', "Jane Doe"),
])
def test_the_authors_names(head, author):
    assert read_metadata(page(head)).author == author


def test_the_byline_link_without_its_by():
    assert read_metadata(page(body='<p><a rel="author" href="/jane">By Jane Doe</a></p>')).author == "Jane Doe"


@pytest.mark.parametrize("head", [
    '<meta name="author" content="Jane Doe"><meta name="author" content="John Roe"><meta name="author" content="Jane Doe">',
    '<meta property="article:author" content="https://x.test/jane"><meta property="article:author" content="Jane Doe">'
    '<meta property="article:author" content="JANE DOE"><meta property="article:author" content="John Roe">',
    # the first name the page gives them by is the one read: another's list is not added to it
    '<meta name="author" content="Jane Doe; John Roe"><meta name="parsely-author" content="Ann Lee">',
])
def test_every_author_a_meta_name_lists_each_once(head):
    assert read_metadata(page(head)).author == "Jane Doe; John Roe"


def test_the_byline_links_not_the_pages_other_author_links():
    # the links beside the byline's first; elsewhere the page links its other stories' authors, a profile
    byline = '<p class="byline">By <a rel="author" href="/jane">Jane Doe</a> and <a rel="author" href="/john">John Roe</a></p>'
    related = '<aside><a rel="author" href="/ann">Ann Lee</a><a rel="author" href="/jane">View my complete profile</a></aside>'
    assert read_metadata(page(body=f"<article>{byline}</article>{related}")).author == "Jane Doe; John Roe"
    microdata = byline.replace('rel="author"', 'itemprop="author"')
    assert read_metadata(page(body=microdata + related.replace('rel="author"', 'itemprop="author"'))).author == "Jane Doe; John Roe"


def test_a_list_of_authors_is_capped():
    from sitewise.metadata import AUTHOR_SEPARATOR, MAX_AUTHORS

    head = "".join(f'<meta name="DC.creator" content="Doe, Jane {number}">' for number in range(MAX_AUTHORS + 5))
    assert read_metadata(page(head)).author == AUTHOR_SEPARATOR.join(f"Doe, Jane {number}" for number in range(MAX_AUTHORS))


@pytest.mark.parametrize("value, author", [
    ("Jane Doe and John Roe", "Jane Doe; John Roe"),
    ("JANE DOE;JOHN ROE", "JANE DOE; JOHN ROE"),
    ("Jean Dupont et Marie Curie", "Jean Dupont; Marie Curie"),
    # what may be one name is kept as written: first names alone, a firm, an organisation's
    ("Ada & Sam", "Ada & Sam"), ("Jane and John Doe", "Jane and John Doe"), ("Ernst & Young", "Ernst & Young"),
    ("Department of Health and Human Services", "Department of Health and Human Services"),
    ("Vincent van Gogh and Paul Gauguin", "Vincent van Gogh and Paul Gauguin"),
    ("Jane Doe (with John Roe and Ann Lee)", "Jane Doe (with John Roe and Ann Lee)"),
    # a comma may part a surname, or say who a name is, of one or all: kept
    ("Jane Doe, John Roe & Ann Lee", "Jane Doe, John Roe & Ann Lee"),
    ("Jane Doe and John Roe, Reuters", "Jane Doe and John Roe, Reuters"),
])
def test_a_byline_naming_several_names_each(value, author):
    assert read_metadata(page(f'<meta name="byl" content="{value}">')).author == author


@pytest.mark.parametrize("byline, author", [
    ('<p class="byline">By Jane Doe</p>', "Jane Doe"),
    ('<span class="author">Jane Doe</span>', "Jane Doe"),
    ('<div class="author-name">Jane Doe</div>', "Jane Doe"),
    ('<p class="byline">Posted by Jane Doe, Garden Editor | May 7, 2024</p>', "Jane Doe"),
    ('<p class="byline">By JANE DOE and JOHN ROE</p>', "JANE DOE; JOHN ROE"),
    ('<div class="byline">By <span class="author">Jane Doe</span> and <span class="author">John Roe</span></div>',
     "Jane Doe; John Roe"),
    ('<p class="byline">Von Jane Doe</p>', "Jane Doe"), ('<p class="byline">Par Jane Doe</p>', "Jane Doe"),
    ('<p class="byline">Por María López</p>', "María López"), ('<p class="byline">Door Jan Jansen</p>', "Jan Jansen"),
    # the byline at the article's top and its end
    ('<p class="byline">By Jane Doe</p><p>Text.</p><footer class="byline">Jane Doe</footer>', "Jane Doe"),
])
def test_a_byline_in_plain_text(byline, author):
    assert read_metadata(page(body=f"<article><h1>Harbor strike ends</h1>{byline}<p>Text.</p></article>")).author == author


@pytest.mark.parametrize("byline", [
    '<p class="byline">Globe Staff</p>', '<p class="byline">Updated: May 7, 2024</p>',
    '<span class="author">Staff Writer</span>', '<span class="author">Sports Network</span>',
    '<span class="author">Jane</span>',  # one word: a name or any word
    '<p class="author">SEROLOGY: IT\'S IN THE BLOOD</p>', '<p class="author">The Philosopher Kings Of Hedging</p>',
    '<p class="byline">NBC\'s Jane Doe</p>', '<a class="author">View Comments</a>', '<p class="byline">Jane Doe Monday</p>',
    # photo credits or a list of stories: several people, none the byline
    '<span class="byline">Jane Doe /</span><span class="byline">John Roe /</span>',
    # a commenter is no author
    '<ol class="comments"><li><span class="author">Jane Doe</span></li></ol>',
])
def test_a_plain_byline_names_a_person_or_no_one(byline):
    assert read_metadata(page(body=f"<article><h1>Harbor strike ends</h1>{byline}<p>Text.</p></article>")).author is None


def test_von_before_a_single_name_is_the_name():
    assert read_metadata(page('<meta name="author" content="Von Miller">')).author == "Von Miller"


def test_an_author_elements_schema_org_name_not_its_job_title_or_badges():
    person = ('<div itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Jane Doe'
              '</span> <span itemprop="jobTitle">Garden Editor</span> <button>Follow</button></div>')
    assert read_metadata(page(body=person)).author == "Jane Doe"
    meta_name = '<div itemprop="author" itemscope><meta itemprop="name" content="Jane Doe"><b>12,345 points</b></div>'
    assert read_metadata(page(body=meta_name)).author == "Jane Doe"


@pytest.mark.parametrize("value", [
    "jane.doe@gazette.test", "By", "by:", "Staff", "admin", "Author:", "View Profile", "View my complete profile",
    "Google profile", "About us",
])
def test_a_value_naming_no_one_passes_to_the_next_source(value):
    html = page(f'<meta name="author" content="{value}">', '<a rel="author" href="/jane">By: Jane Doe</a>')
    assert read_metadata(html).author == "Jane Doe"


# -- malformed JSON-LD -------------------------------------------------------------------------------

ARTICLE = '{"@type": "NewsArticle", "headline": "Harbor strike ends", "author": "Jane Doe"}'


@pytest.mark.parametrize("script", [
    ARTICLE.replace('"Jane Doe"}', '"Jane Doe",}'),  # a trailing comma
    "/* SEO plugin */\n" + ARTICLE,
    "// SEO plugin\n" + ARTICLE,
    "//<![CDATA[\n" + ARTICLE + "\n//]]>",  # XHTML-era CMSs wrap scripts so
    "<!--\n" + ARTICLE + "\n-->",
    "\ufeff" + ARTICLE,
    ARTICLE.replace("Harbor strike", "Harbor\tstrike").replace("Jane", "\nJane"),  # raw tab and line break
    ARTICLE.replace('"', "&quot;"),  # escaped as HTML
])
def test_json_ld_as_cmss_break_it_is_read(script):
    found = read_metadata(page(json_ld(script)))
    assert (found.title, found.author) == ("Harbor strike ends", "Jane Doe")


def test_a_huge_json_ld_graph_is_skipped_unread():
    import json

    from sitewise.metadata import MAX_JSON_LD_CHARS, read_json_ld

    graph = [{"@type": "Thing", "@id": f"#{i}", "name": f"thing {i}"} for i in range(MAX_JSON_LD_CHARS // 30)]
    huge = json.dumps({"@graph": [{"@type": "NewsArticle", "headline": "Harbor strike ends"}, *graph]})
    assert len(huge) > MAX_JSON_LD_CHARS and read_json_ld(huge) is None
    assert read_metadata(page(json_ld(huge) + json_ld(ARTICLE.replace("Harbor", "Port")))).title == "Port strike ends"



# -- title, language, site name ----------------------------------------------------------------------

SITE_NAME = '<meta property="og:site_name" content="The Gazette">'
PUBLISHER = json_ld('{"@type": "NewsArticle", "publisher": {"@type": "Organization", "name": "The Gazette"}}')


@pytest.mark.parametrize("head, body, url, title", [
    (SITE_NAME + "<title>Harbor strike ends | The Gazette</title>", "", None, "Harbor strike ends"),
    (PUBLISHER + "<title>The Gazette \u2014 Harbor strike ends</title>", "", None, "Harbor strike ends"),
    # the site's address spells its name
    ("<title>Ed Brill - New IBM study</title>", "", "http://www.edbrill.com/ibm.html", "New IBM study"),
    ("<title>Harbor strike ends - Local news - The Gazette</title>", "", "https://the-gazette.test/a", "Harbor strike ends - Local news"),
    # nothing says which part is the site's: not the <h1> either (a blog's name as often as the post's),
    # and a headline's own dash stays
    ("<title>EDDIE ROSS - flower magazine</title>", "<h1>EDDIE ROSS</h1><h2>flower magazine</h2>", None, "EDDIE ROSS - flower magazine"),
    ("<title>Harbor strike ends | The Gazette</title>", "<h1>Harbor strike ends</h1>", None, "Harbor strike ends | The Gazette"),
    (SITE_NAME + "<title>Strike - what next? - The Gazette</title>", "", None, "Strike - what next?"),
])
def test_the_title_without_the_sites_name(head, body, url, title):
    assert read_metadata(page(head, body), url=url).title == title


@pytest.mark.parametrize("html, language", [
    (page(lang="en-us"), "en-US"),
    (page(lang="zh-hant-tw"), "zh-Hant-TW"),
    (page(json_ld('{"@type": "NewsArticle", "inLanguage": "es-419"}')), "es-419"),
    # what is no language tag passes to the next source
    (page('<meta http-equiv="content-language" content="de-DE">', lang="{{ lang }}"), "de-DE"),
    (page(json_ld('{"@type": "NewsArticle", "inLanguage": {"@type": "Language", "name": "English"}}')
          + '<meta property="og:locale" content="en_GB">', lang="x-default"), "en-GB"),
])
def test_the_language_is_a_language_tag(html, language):
    assert read_metadata(html).language == language


def test_the_declared_language_even_when_the_text_is_in_another():
    assert read_metadata(page(body="<p>Der Hafenstreik ist vorbei, sagt die Gewerkschaft.</p>", lang="en")).language == "en"


def test_the_site_name_from_the_json_ld_publisher():
    html = page(PUBLISHER + '<meta name="application-name" content="Gazette App">')
    assert read_metadata(html).site_name == "The Gazette"
    assert read_metadata(page(SITE_NAME + PUBLISHER.replace("The Gazette", "Gazette Media Group"))).site_name == "The Gazette"


@pytest.mark.parametrize("script_type", ["application/ld+json; charset=utf-8", " Application/LD+JSON ", "application/ld+json"])
def test_json_ld_with_its_media_types_parameters_or_case_is_read(script_type):
    html = page(f'<script type="{script_type}">{{"@type": "NewsArticle", "headline": "Harbor strike ends"}}</script>'
                "<title>Other</title>")
    assert read_metadata(html).title == "Harbor strike ends"


WIKIPEDIA_LD = json_ld('{"@context": "https://schema.org", "@type": "Article", "name": "Albert Einstein",'
                       ' "headline": "German-born theoretical physicist (1879\u20131955)",'
                       ' "publisher": {"@type": "Organization", "name": "Wikimedia Foundation, Inc."}}')


@pytest.mark.parametrize("head, body, url, title", [
    # a news page: its JSON-LD headline is its <h1> and its og:title without the site's name
    (json_ld('{"@type": "NewsArticle", "headline": "Harbor strike ends"}') + SITE_NAME
     + '<meta property="og:title" content="Harbor strike ends | The Gazette">', "<h1>Harbor strike ends</h1>", None,
     "Harbor strike ends"),
    (json_ld('{"@type": "NewsArticle", "headline": "Harbor Strike Ends!"}') + "<title>Harbor strike ends</title>",
     "<h1>Harbor strike ends</h1>", None, "Harbor Strike Ends!"),  # letters compared: the same title
    # a blog's <h1> is its name: the headline is the title's other part
    (json_ld('{"@type": "BlogPosting", "headline": "Pressed flowers"}') + "<title>EDDIE ROSS - Pressed flowers</title>",
     "<h1>EDDIE ROSS</h1>", None, "Pressed flowers"),
    # a headline the page does not show, and nothing shows another: the headline
    (json_ld('{"@type": "NewsArticle", "headline": "Harbor strike ends"}') + "<title>The Gazette</title>",
     "<h1>Local news</h1>", None, "Harbor strike ends"),
    # Wikipedia's JSON-LD headline is its Wikidata description; the page shows its <h1> in its <title>
    (WIKIPEDIA_LD + '<meta property="og:title" content="Albert Einstein - Wikipedia"><title>Albert Einstein - Wikipedia</title>',
     '<h1 id="firstHeading"><span class="mw-page-title-main">Albert Einstein</span></h1>',
     "https://en.wikipedia.org/wiki/Albert_Einstein", "Albert Einstein"),
    # the <h1> is the site's name, the title's other part: the headline
    (json_ld('{"@type": "BlogPosting", "headline": "Cleaning costs in San Diego"}')
     + "<title>What cleaning costs in San Diego \u2014 Seattle Cleaners Co.</title>", "<h1>Seattle Cleaners Co.</h1>",
     "https://seattlecleaners.test/blog/costs", "Cleaning costs in San Diego"),
    (json_ld('{"@type": "BlogPosting", "headline": "Yoga retreats"}') + "<title>Yoga retreats abroad | Ambuja Yoga</title>",
     "<h1>Ambuja Yoga</h1>", "https://ambujayoga.test/blog/retreats", "Yoga retreats"),
    # a headline the CMS cut short
    (json_ld('{"@type": "NewsArticle", "headline": "Harbor strike ends after three weeks of talks between..."}')
     + '<meta property="og:title" content="Harbor strike ends after three weeks of talks between the union and the port">',
     "<h1>Harbor strike ends after three weeks of talks between the union and the port</h1>", None,
     "Harbor strike ends after three weeks of talks between the union and the port"),
])
def test_the_json_ld_headline_unless_the_page_shows_another_title(head, body, url, title):
    assert read_metadata(page(head, body), url=url).title == title
