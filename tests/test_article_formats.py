"""The article's structure in the outputs that keep it: data tables as GitHub tables in Markdown, and the
``html`` output (clean, escaped HTML of the blocks Markdown writes), from the library and the CLI."""
from __future__ import annotations

import pytest

import sitewise
from sitewise.article_html import to_html
from sitewise.cli import main
from sitewise.markdown import to_markdown

#: Story paragraphs around the blocks under test make the fallback take them as the article's.
STORY = f"<p>{'The harbor workers voted for a strike after the long talks with the port. ' * 3}</p>"


def page(blocks: str) -> str:
    return f"<html><body><nav><a href='/'>Home</a></nav><article><h1>The strike</h1>{STORY}{blocks}{STORY}</article></body></html>"


#: A results table: a header of <th>, a "|" in a cell, two lines in one (a <br>), an empty cell, a row
#: short of a cell, and the same value ("0") in several cells, each in its own row and column.
RESULTS = (
    "<table><caption>Votes</caption><thead><tr><th>Port</th><th>For | against</th><th>Abstained</th></tr></thead>"
    "<tbody><tr><td>Hamburg</td><td>412<br>(late count)</td><td>0</td></tr>"
    "<tr><td>Rotterdam &amp; co</td><td></td><td>0</td></tr>"
    "<tr><td>Antwerp</td><td>0</td></tr></tbody></table>"
)


def test_markdown_makes_a_data_table_a_github_table():
    markdown = sitewise.extract(page(RESULTS), output="markdown")
    assert ("\n\nVotes\n\n"
            "| Port | For \\| against | Abstained |\n"
            "| --- | --- | --- |\n"
            "| Hamburg | 412 (late count) | 0 |\n"
            "| Rotterdam & co |  | 0 |\n"
            "| Antwerp | 0 |  |\n\n") in markdown


def test_markdown_lays_out_spanned_cells_and_a_table_without_th():
    # the first row is the header without <th>; a colspan leaves the columns it covers empty, a rowspan
    # holds its column in the rows below
    table = ("<table><tr><td>Model</td><td>Weight</td><td>Price</td></tr>"
             "<tr><td rowspan='2'>Harbor crane</td><td colspan='2'>on request</td></tr>"
             "<tr><td>3 t</td><td>90 k</td></tr></table>")
    markdown = sitewise.extract(page(table), output="markdown")
    assert ("| Model | Weight | Price |\n| --- | --- | --- |\n| Harbor crane | on request |  |\n|  | 3 t | 90 k |"
            in markdown)


@pytest.mark.parametrize("table", [
    "<table><tr><td>Cargo ships wait in the bay</td></tr><tr><td>The ferries still sail</td></tr></table>",
    "<table><tr><td>Cargo ships wait in the bay</td><td>The ferries still sail</td></tr></table>",
    "<table><tr><td>Cargo ships wait in the bay</td><td><table><tr><td>The ferries still sail</td></tr></table></td></tr>"
    "<tr><td>Port office</td><td>Quay street 1</td></tr></table>",
    "<table><tr><td><h2>Cargo ships wait in the bay</h2></td><td>The ferries still sail</td></tr>"
    "<tr><td>Port office</td><td>Quay street 1</td></tr></table>",
], ids=["one column", "one row", "a table in it", "a heading in a cell"])
def test_markdown_leaves_a_layout_table_as_paragraphs(table):
    markdown = sitewise.extract(page(table), output="markdown")
    assert "|" not in markdown
    assert "\n\nCargo ships wait in the bay\n\n" in markdown or "\n\n## Cargo ships wait in the bay\n\n" in markdown


def test_markdown_keeps_the_part_of_a_table_the_article_holds():
    # rows without the header: the first row held is the header; a row of one cell is no table
    html = page(RESULTS)
    assert to_markdown("Rotterdam & co\n0\nAntwerp\n0", html) == "| Rotterdam & co |  | 0 |\n| --- | --- | --- |\n| Antwerp | 0 |  |"
    assert to_markdown("Hamburg\nThe end", html) == "Hamburg\n\nThe end"


def test_html_output_escapes_the_texts_and_keeps_nothing_of_the_pages_markup():
    blocks = ("<p class='lead' onclick='steal()'>Write &lt;script&gt;alert(1)&lt;/script&gt; and AT&amp;T as they are."
              "<script>alert(2)</script><a href='javascript:alert(3)'>here</a></p>")
    html = sitewise.extract(page(blocks), output="html")
    assert html.startswith("<article>\n<h1>The strike</h1>\n<p>The harbor") and html.endswith("</p>\n</article>")
    assert "<p>Write &lt;script&gt;alert(1)&lt;/script&gt; and AT&amp;T as they are.here</p>" in html
    assert "alert(2)" not in html and "onclick" not in html and "class=" not in html and "href" not in html
    assert sitewise.extract("<p>no", output="html") == ""


def test_html_output_nests_lists_keeps_code_quotes_breaks_and_tables():
    code = "def f(x):\n    if x &lt; 1:\n        return 1"
    blocks = ("<ol><li>Moor the ship<ul><li>Check the ropes</li><li>Lower the fenders<ol><li>Port side first</li></ol>"
              f"</li></ul></li><li>Open the hatches</li></ol><pre><code>{code}</code></pre>"
              "<blockquote><p>We will not<br>load a ship</p><ul><li>Cargo waits</li></ul></blockquote>" + RESULTS)
    html = sitewise.extract(page(blocks), output="html")
    assert ("<ol>\n<li>Moor the ship\n<ul>\n<li>Check the ropes</li>\n<li>Lower the fenders\n<ol>\n"
            "<li>Port side first</li>\n</ol>\n</li>\n</ul>\n</li>\n<li>Open the hatches</li>\n</ol>\n") in html
    assert f"<pre><code>{code}</code></pre>\n" in html  # its line breaks and indentation, its "<" escaped
    assert "<blockquote>\n<p>We will not<br>load a ship</p>\n<ul>\n<li>Cargo waits</li>\n</ul>\n</blockquote>\n" in html
    assert ("<table>\n<thead>\n<tr><th>Port</th><th>For | against</th><th>Abstained</th></tr>\n</thead>\n<tbody>\n"
            "<tr><td>Hamburg</td><td>412<br>(late count)</td><td>0</td></tr>\n"
            "<tr><td>Rotterdam &amp; co</td><td></td><td>0</td></tr>\n"
            "<tr><td>Antwerp</td><td>0</td><td></td></tr>\n</tbody>\n</table>\n") in html


def test_html_and_markdown_read_the_same_structure():
    # one place decides what each line is: a heading, list items and a quote come out alike in both
    html = page("<h2>What the union says</h2><ul><li>Cargo waits</li></ul><blockquote>Not one ship</blockquote>")
    text = sitewise.extract(html)
    assert "\n\n## What the union says\n\n- Cargo waits\n\n> Not one ship\n\n" in to_markdown(text, html)
    assert "\n<h2>What the union says</h2>\n<ul>\n<li>Cargo waits</li>\n</ul>\n<blockquote>\n<p>Not one ship</p>\n</blockquote>\n" in to_html(text, html)


def test_cli_prints_html(tmp_path, capsys):
    saved = tmp_path / "page.html"
    saved.write_text(page("<ul><li>Fish &amp; chips</li><li>Tea</li></ul>"), encoding="utf-8")
    assert main(["extract", str(saved), "--no-store", "--output", "html"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<article>\n<h1>") and out.endswith("</article>\n") and "<ul>\n<li>Fish &amp; chips</li>\n<li>Tea</li>\n</ul>" in out
    assert main(["extract", str(saved), str(saved), "--no-store", "--output", "html", "--jobs", "1"]) == 0
    assert '"html": "<article>' in capsys.readouterr().out  # JSON lines name the output by its format


#: A paragraph with links: relative, absolute with characters a link's address must not hold raw, one that
#: runs a script, one to a place on the page, one whose text the paragraph gives twice; and a linked item.
LINKED = ("<p>The <a href='/unions/dockers'>dockers' union</a> asked <a href='https://port.test/a b(1)'>the port</a>"
          " to <a href='javascript:steal()'>talk</a>, as the <a href='#notes'>notes</a> say; the port said"
          " the port would not.</p><ul><li>The members read <a href='/vote'>the vote [results]</a> at the gates</li></ul>")
#: Links whose words the line gives before them too: a footnote's mark, names.
FOOTNOTED = ("<p>The vote was 1,200 to 31 in the early count.<a href='/notes'>1</a> The <a href='/union'>dockers</a>"
             " and the dockers' wives voted; <a href='/wives'>the dockers' wives</a> marched to the gates.<br>"
             "The port's <a href='/port/reply'>reply</a> came late.<br>The union's <a href='/union/reply'>reply</a>"
             " came at once.</p>")


def test_links_are_kept_only_when_asked_each_to_its_address():
    html = page(LINKED)
    url = "https://news.test/2024/strike"
    assert "](" not in sitewise.extract(html, url=url, output="markdown")
    assert "<a " not in sitewise.extract(html, url=url, output="html")
    markdown = sitewise.extract(html, url=url, output="markdown", include_links=True)
    assert ("The [dockers' union](https://news.test/unions/dockers) asked [the port](https://port.test/a%20b%281%29)"
            " to talk, as the notes say; the port said the port would not.") in markdown
    assert "- The members read [the vote \\[results\\]](https://news.test/vote) at the gates" in markdown
    # each link where the page puts it: a footnote's mark after a number holding its digit, a name the line
    # gives unlinked before it
    # and a line of a paragraph a <br> splits has its own links, not its neighbours' of the same words
    assert ("The vote was 1,200 to 31 in the early count.[1](https://news.test/notes) The [dockers](https://news.test/union)"
            " and the dockers' wives voted; [the dockers' wives](https://news.test/wives) marched to the gates.\\\n"
            "The port's [reply](https://news.test/port/reply) came late.\\\n"
            "The union's [reply](https://news.test/union/reply) came at once.") in \
        sitewise.extract(page(FOOTNOTED), url=url, output="markdown", include_links=True)
    article = sitewise.extract(html, url=url, output="html", include_links=True)
    assert ('<p>The <a href="https://news.test/unions/dockers">dockers\' union</a> asked '
            '<a href="https://port.test/a%20b%281%29">the port</a> to talk, as the notes say;') in article
    assert "javascript" not in markdown + article and "#notes" not in markdown + article
    # without the page's address a relative link stays relative; text and JSON are the words alone
    assert "[dockers' union](/unions/dockers)" in sitewise.extract(html, output="markdown", include_links=True)
    assert sitewise.extract(html, url=url, include_links=True) == sitewise.extract(html, url=url)


def test_a_link_no_url_parser_reads_stays_text():
    html = "<html><body><p>Ships wait at <a href='http://[::1/x'>the gates</a> and <a href='/quay'>the quay</a>.</p></body></html>"
    assert to_markdown("Ships wait at the gates and the quay.", html, links=True, base_url="https://news.test/a") == (
        "Ships wait at the gates and [the quay](https://news.test/quay).")


#: The article's images: a figure whose caption the article leaves out, lazy-loaded (its src a placeholder),
#: an image in a paragraph, a picture given by its srcset alone, one given by its <picture>'s <source>; and
#: images that are not the article's: an icon, images declared decorative, a tracking pixel, the site's
#: logo, an advertisement beside the article, a picture after its end.
PICTURED = (
    "<nav><a href='/'><img src='/logo.png' alt='Logo'></a></nav><article><h1>The strike</h1>" + STORY
    + "<p>The dockers met at the <img src='/icons/pin.png' width='16' height='16'> gate at dawn"
      " <img src='/img/flourish.png' role='presentation'><img src='/img/rule.png' aria-hidden='true'>"
      " <img src='https://pixel.test/p.gif' width='1' height='1'>.</p>"
    + "<figure><img src='data:image/gif;base64,R0lGOD' data-src='/img/gate (1).jpg' alt='The [vote]'>"
      "<figcaption>The vote.</figcaption></figure>" + STORY
    + "<p>The union's <img src='/img/leader.jpg' alt=' The   leader '> leader spoke to the workers at the gates.</p>"
    + "<p><picture><img srcset='/img/crowd-1x.jpg 1x, /img/crowd-2x.jpg 2x'></picture></p>"
    + "<p><picture><source srcset='/img/dock.webp 1x, /img/dock@2x.webp 2x' type='image/webp'><img alt='The dock'>"
      "</picture></p>" + STORY
    + "<figure><img src='/img/ending.jpg'></figure></article>"
      "<aside><img src='/ads/boots.jpg'><p>Boots for dockers, half price this week only</p></aside>"
)


def test_images_are_kept_only_when_asked_each_where_the_article_shows_it():
    html = f"<html><body>{PICTURED}</body></html>"
    url = "https://news.test/2024/strike"
    assert "![" not in sitewise.extract(html, url=url, output="markdown")
    assert "<img" not in sitewise.extract(html, url=url, output="html")
    markdown = sitewise.extract(html, url=url, output="markdown", include_images=True)
    assert markdown.count("![") == 4
    assert "at dawn .\n\n![The \\[vote\\]](https://news.test/img/gate%20%281%29.jpg)\n\nThe harbor" in markdown
    assert "![The leader](https://news.test/img/leader.jpg)\n\nThe union's leader spoke" in markdown
    assert "\n\n![](https://news.test/img/crowd-1x.jpg)\n\n![The dock](https://news.test/img/dock.webp)\n\n" in markdown
    article = sitewise.extract(html, url=url, output="html", include_images=True)
    assert '<figure><img src="https://news.test/img/gate%20%281%29.jpg" alt="The [vote]"></figure>' in article
    assert article.count("<img") == 4
    for elsewhere in ("logo.png", "pin.png", "p.gif", "ending.jpg", "boots.jpg", "flourish.png", "rule.png"):
        assert elsewhere not in markdown + article
    # the words are the same either way
    assert sitewise.extract(html, url=url, include_images=True) == sitewise.extract(html, url=url)


#: A page that says what it is: title, author, date, description (with quotes, a colon and a line's end to
#: escape), language and site name.
DESCRIBED = (
    '<html lang="en-GB"><head><title>Dockers strike | The Harbour Times</title>'
    '<meta property="og:site_name" content="The Harbour Times">'
    '<meta name="author" content="Ann O\'Hara"><meta property="article:published_time" content="2024-03-05T08:00:00Z">'
    '<meta name="description" content="The port\'s &quot;last offer&quot;: refused.&#10;Talks go on.">'
    '<meta property="og:image" content="/img/card.jpg"></head>'
    f"<body>{PICTURED}</body></html>"
)


def test_metadata_opens_text_and_markdown_and_heads_html_only_when_asked():
    import yaml

    url = "https://news.test/2024/strike"
    expected = {"title": "Dockers strike", "author": "Ann O'Hara", "date": "2024-03-05T08:00:00+00:00", "url": url,
                "site_name": "The Harbour Times", "description": "The port's \"last offer\": refused. Talks go on.",
                "image": "https://news.test/img/card.jpg", "language": "en-GB"}
    for output in ("text", "markdown"):
        plain = sitewise.extract(DESCRIBED, url=url, output=output)
        with_metadata = sitewise.extract(DESCRIBED, url=url, output=output, with_metadata=True)
        assert not plain.startswith("---") and with_metadata.startswith("---\n")
        _, front_matter, article = with_metadata.split("---\n", 2)
        assert yaml.safe_load(front_matter) == expected
        assert list(yaml.safe_load(front_matter)) == ["title", "author", "date", "url", "site_name", "description",
                                                     "image", "language"]
        assert article == "\n" + plain
    document = sitewise.extract(DESCRIBED, url=url, output="html", with_metadata=True)
    assert document.startswith('<!DOCTYPE html>\n<html lang="en-GB">\n<head>\n<meta charset="utf-8">\n<title>Dockers strike</title>\n')
    assert '<link rel="canonical" href="https://news.test/2024/strike">' in document
    assert '<meta name="description" content="The port&#x27;s &quot;last offer&quot;: refused. Talks go on.">' in document
    assert '<meta property="og:image" content="https://news.test/img/card.jpg">' in document
    assert '<meta property="og:site_name" content="The Harbour Times">' in document
    assert document.endswith("<body>\n" + sitewise.extract(DESCRIBED, url=url, output="html") + "\n</body>\n</html>")
    # the caller's URL is given as it is, and reads back so, whatever characters it holds
    odd_url = "https://news.test/2024/strike\u2028and\u2029more"
    front_matter = sitewise.extract(DESCRIBED, url=odd_url, output="markdown", with_metadata=True).split("---\n")[1]
    assert yaml.safe_load(front_matter)["url"] == odd_url
    # a page without an article gives nothing, metadata or not; JSON holds the metadata always
    assert sitewise.extract("<html><head><title>Empty</title></head><body></body></html>", with_metadata=True) == ""
    assert sitewise.extract(DESCRIBED, url=url, output="json", with_metadata=True) == sitewise.extract(
        DESCRIBED, url=url, output="json")


#: Words marked inline: bold, italic, both, struck through, code (holding a backtick), a linked bold phrase
#: with an italic word, a word marked where the line gave it unmarked before ("a"), a bold stretch with
#: spaces at its ends, and a bold one ending on punctuation inside a word, which Markdown cannot mark.
FORMATTED = (
    "<p>Press a key: the union said <strong>no ships</strong> would sail, <em>none at all</em>, <b><i>ever</i></b>;"
    " run <code>strike `now`</code> and <kbd>a</kbd> for <del>all</del> some, <b><a href='/plan'>a plan that"
    " <i>works</i></a></b>, <b> in full </b>, at <b>Pier ‘9’</b>s gate.</p>"
)


def test_formatting_is_marked_only_when_asked_and_reads_back_as_the_html():
    from markdown_it import MarkdownIt

    html, url = page(FORMATTED), "https://news.test/2024/strike"
    assert "**" not in sitewise.extract(html, url=url, output="markdown")
    assert "<strong>" not in sitewise.extract(html, url=url, output="html")
    markdown = sitewise.extract(html, url=url, output="markdown", include_formatting=True, include_links=True)
    assert ("Press a key: the union said **no ships** would sail, *none at all*, ***ever***; run `` strike `now` ``"
            " and `a` for ~~all~~ some, **[a plan that ](https://news.test/plan)*[works](https://news.test/plan)***,"
            " **in full** , at Pier ‘9’s gate.") in markdown
    article = sitewise.extract(html, url=url, output="html", include_formatting=True, include_links=True)
    assert ("<p>Press a key: the union said <strong>no ships</strong> would sail, <em>none at all</em>,"
            " <strong><em>ever</em></strong>; run <code>strike `now`</code> and <code>a</code> for <del>all</del> some,"
            ' <strong><a href="https://news.test/plan">a plan that </a><em><a href="https://news.test/plan">works</a>'
            "</em></strong>, <strong>in full</strong> , at <strong>Pier ‘9’</strong>s gate.</p>") in article
    # a CommonMark reader (with GitHub's strikethrough) reads the Markdown as the HTML, but for the mark
    # Markdown cannot make (and ***ever*** read as emphasis around strong: the same)
    read_back = MarkdownIt("commonmark").enable("strikethrough").render(markdown)
    for theirs, ours in (("s>", "del>"), ("<em><strong>ever</strong></em>", "<strong><em>ever</em></strong>")):
        read_back = read_back.replace(theirs, ours)
    expected = article.removeprefix("<article>\n").removesuffix("</article>")
    assert read_back == expected.replace("<strong>Pier ‘9’</strong>s", "Pier ‘9’s")
    assert sitewise.extract(html, url=url, include_formatting=True) == sitewise.extract(html, url=url)


#: Words and the characters Markdown reads as markup, for paragraphs of nested inline marks and links.
MARKUP_WORDS = ["port", "strike", "a", "x_y", "_z_", "*", "**", "~~", "~", "`", "``", "[", "]", "(", ")", "&lt;b&gt;",
                "&amp;", "&amp;copy;", "#", "\\", "-", "1.", "’", '"', "!", "|", "&gt;", "'", "9"]


def _inline_html(depth: int):
    from hypothesis import strategies as st

    words = st.lists(st.sampled_from(MARKUP_WORDS), min_size=1, max_size=4).map(" ".join)
    if depth == 0:
        return words
    wrapped = st.tuples(st.sampled_from(["b", "i", "code", "del", "a"]), st.lists(_inline_html(depth - 1), min_size=1,
                                                                                  max_size=3))
    return words | wrapped.map(lambda tag_parts: ("<a href='/p'>" if tag_parts[0] == "a" else f"<{tag_parts[0]}>")
                               + " ".join(tag_parts[1]) + f"</{tag_parts[0]}>")


def _shown_words(html: str) -> str:
    """The words HTML shows, spacing aside (a line break a space)."""
    from selectolax.lexbor import LexborHTMLParser

    nodes = LexborHTMLParser(html).body.traverse(include_text=True)
    return " ".join("".join(" " if node.tag == "br" else node.text_content or "" for node in nodes
                            if node.tag in ("-text", "br")).split())


def test_formatted_markdown_shows_the_words_the_html_shows():
    """Whatever the marks, links and markup characters of a paragraph, a CommonMark reader (GitHub's
    strikethrough on) shows the Markdown's words as the HTML output shows them: nothing read as markup
    that is text, no space lost at a code span's edge."""
    from hypothesis import given, settings, strategies as st
    from markdown_it import MarkdownIt

    from sitewise.learn.rules import page_lines

    reader = MarkdownIt("commonmark").enable("strikethrough")

    @settings(max_examples=300, deadline=None)
    @given(parts=st.lists(_inline_html(2), min_size=1, max_size=6))
    def check(parts):
        html = f"<html><body><p>Lead words {' '.join(parts)} and the end.</p></body></html>"
        text = "\n".join(line for line, _, _ in page_lines(html))
        markdown = to_markdown(text, html, True, "https://news.test/", marks=True)
        assert _shown_words(reader.render(markdown)) == _shown_words(to_html(text, html, True, "https://news.test/", marks=True))

    check()


#: Words that start a line like Markdown's block markup: headings, lists, quotes, fences, breaks, tables.
BLOCK_MARKUP_WORDS = ["port", "strike", "x_y", "*", "-", "+", "1.", "2)", "#", "##", "&gt;", "`", "```", "~~~", "|",
                      "---", "===", "\\", "&lt;", "&amp;", "[x]", "9"]


def _block_html(depth: int):
    from hypothesis import strategies as st

    words = st.lists(st.sampled_from(BLOCK_MARKUP_WORDS), min_size=1, max_size=5).map(" ".join)
    leaf = (words.map(lambda w: f"<p>{w}</p>") | words.map(lambda w: f"<h2>{w}</h2>")
            | st.lists(words, min_size=1, max_size=3).map(lambda lines: "<p>" + "<br>".join(lines) + "</p>")
            | words.map(lambda w: f"<pre>{w}\n  {w}</pre>"))
    if depth == 0:
        return leaf
    inner = _block_html(depth - 1)
    items = st.lists(words | inner, min_size=1, max_size=3).map(lambda parts: "".join(f"<li>{p}</li>" for p in parts))
    return (leaf | items.map(lambda li: f"<ul>{li}</ul>") | items.map(lambda li: f"<ol>{li}</ol>")
            | st.lists(inner, min_size=1, max_size=3).map(lambda blocks: f"<blockquote>{''.join(blocks)}</blockquote>"))


def test_markdown_shows_the_words_the_html_shows_whatever_the_blocks():
    """Headings, paragraphs split by <br>, code, nested lists and quotes whose words start like Markdown's
    block markup: a CommonMark reader shows the Markdown's words as the HTML output shows them."""
    from hypothesis import given, settings, strategies as st
    from markdown_it import MarkdownIt

    from sitewise.learn.rules import page_lines

    reader = MarkdownIt("commonmark")

    @settings(max_examples=300, deadline=None)
    @given(blocks=st.lists(_block_html(2), min_size=1, max_size=5))
    def check(blocks):
        html = f"<html><body>{''.join(blocks)}</body></html>"
        text = "\n".join(line for line, _, _ in page_lines(html))
        assert _shown_words(reader.render(to_markdown(text, html))) == _shown_words(to_html(text, html))

    check()


def test_cli_keeps_links_when_asked(tmp_path, capsys):
    saved = tmp_path / "page.html"
    saved.write_text(page(LINKED), encoding="utf-8")
    assert main(["extract", str(saved), "--url", "https://news.test/a", "--no-store", "--output", "markdown",
                 "--include-links"]) == 0
    assert "[dockers' union](https://news.test/unions/dockers)" in capsys.readouterr().out
    saved.write_text(f"<html><body>{PICTURED}</body></html>", encoding="utf-8")
    assert main(["extract", str(saved), "--url", "https://news.test/a", "--no-store", "--output", "html",
                 "--include-images"]) == 0
    assert '<img src="https://news.test/img/leader.jpg" alt="The leader">' in capsys.readouterr().out
    saved.write_text(page(FORMATTED), encoding="utf-8")
    assert main(["extract", str(saved), "--no-store", "--output", "markdown", "--include-formatting"]) == 0
    assert "the union said **no ships** would sail" in capsys.readouterr().out
    # asked of an output they do not change, the options are named as ignored
    assert main(["extract", str(saved), "--no-store", "--include-formatting", "--include-links"]) == 0
    out, err = capsys.readouterr()
    assert "**" not in out and "--include-links and --include-formatting change only --output markdown and html" in err
    saved.write_text(DESCRIBED, encoding="utf-8")
    assert main(["extract", str(saved), "--url", "https://news.test/a", "--no-store", "--with-metadata"]) == 0
    assert capsys.readouterr().out.startswith('---\ntitle: "Dockers strike"\nauthor: "Ann O\'Hara"\n')
