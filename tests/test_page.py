import pytest

from sitewise.page import (
    STYLE_PROPERTIES, Page, PageError, expand_style_table, host_named, host_of, is_public_suffix, site_of,
)


def block(**overrides):
    data = {
        "text": "Hello world", "tag": "p", "path": ["html", "body", "p"], "selector": "body > p",
        "box": {"left": 0, "top": 10, "width": 100, "height": 20}, "style": {"font-size": "16px"},
        "link_chars": 5,
    }
    data.update(overrides)
    return data


def page(**overrides):
    data = {"url": "https://www.Example.com/a", "titles": ["T"], "blocks": [block()], "collector": "playwright"}
    data.update(overrides)
    return data


@pytest.mark.parametrize(
    "url, site",
    [
        ("https://WWW.Example.co.uk:8080/a?b", "example.co.uk"),
        ("http://news.bbc.co.uk/x", "bbc.co.uk"),
        ("http://money.cnn.com/2011/a.html", "cnn.com"),
        ("http://a.b.news.yahoo.com/", "yahoo.com"),
        ("http://www/x", "www"),
        ("file:///tmp/a.html", "local"),
        ("http://example.com./", "example.com"),
        ("http://alice.blogspot.com/p", "alice.blogspot.com"),  # a private suffix: one site per blog
        ("http://127.0.0.1:5000/a", "127.0.0.1"),
        ("http://[::1]:8080/a", "::1"),
        ("http://localhost/a", "localhost"),
        ("http://co.uk/", "co.uk"),  # a public suffix is its own site
        # An internationalized name is one site however it is written: the punycode browsers send ...
        ("https://www.Bücher.DE/a", "xn--bcher-kva.de"),
        ("https://xn--bcher-kva.de/a", "xn--bcher-kva.de"),
        ("https://news.bücher。de/a", "xn--bcher-kva.de"),  # the ideographic full stop is a dot (UTS #46)
        ("https://ｗｗｗ.ＥＸＡＭＰＬＥ.org/", "example.org"),  # full-width forms are ASCII
        ("https://faß.de/", "xn--fa-hia.de"),  # non-transitional, as browsers: not IDNA 2003's fass.de
        # ... and the list's internationalized suffixes count in punycode as in their own script.
        ("http://a.b.сайт.рф/", "xn--80aswg.xn--p1ai"),
        ("http://a.b.xn--80aswg.xn--p1ai/", "xn--80aswg.xn--p1ai"),
        ("http://shop.example.公司.cn/", "example.xn--55qx5d.cn"),
    ],
)
def test_site_rule(url, site):
    assert site_of(url) == site


def test_host_keeps_subdomains():
    assert host_of("http://WWW.News.BBC.co.uk:80/x") == "news.bbc.co.uk"


@pytest.mark.parametrize(
    "name, host",
    [
        ("News.Example.org.", "news.example.org"),
        ("www.example.org:8080", "example.org"),  # a port names the same host
        ("example.org:", "example.org"),
        ("127.0.0.1:5000", "127.0.0.1"),
        ("::1", "::1"),
        ("[::1]:8080", "::1"),
        ("例え.jp", "xn--r8jz45g.jp"),  # an internationalized name, in its own script, in punycode ...
        ("नमस्ते.example", "xn--h2bhs4b8d8a.example"),  # ... combining marks included
        ("xn--r8jz45g.jp", "xn--r8jz45g.jp"),  # ... as it is given in punycode
        ("BÜCHER.de:8080", "xn--bcher-kva.de"),
        ("ex。org", "ex.org"),
        ("my_blog.bücher.de", "my_blog.xn--bcher-kva.de"),
        ("my_blog.example.org", "my_blog.example.org"),
    ],
)
def test_host_named(name, host):
    assert host_named(name) == host


@pytest.mark.parametrize("name", ["", "[x", "[x]", "a..b", ".example.org", "a/b", "me@example.org", "exa mple.org",
                                  "ex%41mple.org", "example.org:99999", "ex:am:80", "x" * 64 + ".org"])
def test_host_named_refuses_what_is_no_host(name):
    with pytest.raises(PageError, match="is not a host name"):
        host_named(name)


@pytest.mark.parametrize("name", ["☃.net", "\u0301ab.de", "-bü.de", "bü\u200d.de"])
def test_host_named_refuses_what_idna_refuses(name):
    with pytest.raises(PageError, match="is not a valid internationalized host name"):
        host_named(name)


def test_a_page_url_idna_refuses_is_refused():
    with pytest.raises(PageError) as err:
        Page.from_dict(page(url="https://☃.net/a"))
    assert err.value.field == "url" and "internationalized" in err.value.reason


def test_public_suffixes_are_the_lists_own():
    assert all(map(is_public_suffix, ["com", "co.uk", "blogspot.com", "CO.UK.", "公司.cn", "xn--55qx5d.cn"]))
    assert not any(map(is_public_suffix, ["example.org", "alice.blogspot.com", "localhost", "127.0.0.1", "::1"]))


def test_site_rule_rejects_url_without_host():
    with pytest.raises(PageError) as err:
        site_of("not a url")
    assert err.value.field == "url"


def test_round_trip_keeps_everything():
    original = Page.from_dict(page(blocks=[block(attrs={"itemprop": "articleBody"})], lang="en"))
    again = Page.from_dict(original.to_dict())
    assert again == original
    assert again.blocks[0].extra == {"attrs": {"itemprop": "articleBody"}}
    assert again.site == "example.com"
    assert again.blocks[0].link_density == pytest.approx(5 / 11)


def test_blocks_of_one_style_share_a_copy_of_it():
    given = {"font-size": "16px", "color": "red"}
    blocks = [block(style=given), block(style=dict(given)), block(style={"font-size": "12px"})]
    loaded = Page.from_dict(page(blocks=blocks)).blocks
    assert loaded[0].style is loaded[1].style  # learning reads a shared style's values once
    assert loaded[0].style == given and loaded[0].style is not given  # the caller's dict is not kept
    assert loaded[2].style == {"font-size": "12px"}


def test_the_style_table_form_reads_back_as_the_page():
    """The store keeps pages in the style-table form (half the JSON to parse): it must read back whole."""
    body, grey = ({name: f"{name}-{value}" for name in STYLE_PROPERTIES} for value in ("body", "grey"))
    styled = Page.from_dict(page(blocks=[block(style=body), block(style=grey, attrs={"role": "note"}),
                                         block(style=dict(body))], lang="de"))
    compact = styled.to_dict(style_table=True)
    assert compact["styles"] == [[body[name] for name in STYLE_PROPERTIES], [grey[name] for name in STYLE_PROPERTIES]]
    assert [b["style"] for b in compact["blocks"]] == [0, 1, 0]
    again = Page.from_dict(expand_style_table(compact))
    assert again == styled and again.to_dict() == styled.to_dict()
    assert again.blocks[0].style is again.blocks[2].style
    # A style of other properties (an import, a test's page) keeps the plain form, unchanged.
    partial = Page.from_dict(page())
    assert partial.to_dict(style_table=True) == partial.to_dict()


def test_canonical_url_is_the_key():
    assert Page.from_dict(page(canonical_url="https://example.com/c")).key == "https://example.com/c"
    assert Page.from_dict(page()).key == "https://www.Example.com/a"


@pytest.mark.parametrize(
    "data, field",
    [
        ([], "(page)"),
        (page(url=""), "url"),
        (page(url=5), "url"),
        (page(blocks="x"), "blocks"),
        (page(blocks=[block(text="")]), "blocks[0].text"),
        (page(blocks=[block(box={"left": 0})]), "blocks[0].box"),
        (page(blocks=[block(), block(path="body")]), "blocks[1].path"),
        (page(blocks=[block(link_chars=-1)]), "blocks[0].link_chars"),
        (page(blocks=[block(style={"color": 3})]), "blocks[0].style"),
        (page(collector="robot"), "collector"),
        (page(format=99), "format"),
        (page(titles="T"), "titles"),
    ],
)
def test_bad_input_names_the_field(data, field):
    with pytest.raises(PageError) as err:
        Page.from_dict(data)
    assert err.value.field == field


def test_oversized_html_is_dropped_not_stored():
    from sitewise.page import MAX_HTML_CHARS

    assert Page.from_dict(page(html="x" * (MAX_HTML_CHARS + 1))).html is None


def test_html_too_costly_to_parse_is_dropped_not_stored():
    from sitewise.nesting import MAX_NESTING_DEPTH

    deep = "<div>" * (MAX_NESTING_DEPTH + 1) + "words"
    assert Page.from_dict(page(html=deep)).html is None
    misnested = "".join(f"<div><b id={i}>words</div>" for i in range(10_000))
    assert Page.from_dict(page(html=misnested)).html is None
    shallow = "<div><p>words</p></div>" * MAX_NESTING_DEPTH  # more tags, but flat
    assert Page.from_dict(page(html=shallow)).html == shallow


def test_schema_accepts_what_the_model_writes():
    import json
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("sitewise").joinpath("schema/page.schema.json").read_text())
    jsonschema.validate(Page.from_dict(page()).to_dict(), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(page(blocks=[{"text": "x"}]), schema)
