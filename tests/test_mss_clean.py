"""DOM clean-up before tokenizing, the paper's pruning of the block, and the <hr> constraint."""
from sitewise.mss.clean import CleanOptions, clean_dom, prune_block
from sitewise.mss.extractor import cut_at_hr
from sitewise.mss.tokenize import parse_html, tokenize

LONG = " ".join(["word"] * 60)


def words_after(html: str, options: CleanOptions = CleanOptions()) -> list[str]:
    return [w for w in tokenize(clean_dom(parse_html(html), options)).words if w]


def test_hidden_elements_are_dropped_but_the_text_after_them_stays():
    html = ('<body><div hidden>secret</div>tail one<p style="display: none">gone</p>'
            '<p aria-hidden="true">icon</p><p style="Visibility:Hidden">ghost</p><p>kept</p></body>')
    assert words_after(html) == ["tail", "one", "kept"]
    assert "secret" in words_after(html, CleanOptions(hidden=False))


def test_aside_nav_and_suspicious_names_are_dropped_unless_they_say_content():
    html = ('<body><nav>menu words</nav><aside>side words</aside><div id="comments">a comment</div>'
            '<div class="social-share">share this</div><div class="post-comments-content">body text</div>'
            '<div class="widget Blog">blog post</div><article class="comment">protected</article>'
            '<footer>footer words</footer></body>')
    assert words_after(html) == ["body", "text", "blog", "post", "protected"]
    everything = CleanOptions(hidden=False, aside_nav=False, suspicious_names=False)
    kept = words_after(html, everything)
    assert "menu" in kept and "comment" in kept and "footer" in kept


def test_figure_and_furniture_rules_are_optional():
    html = "<body><figure><figcaption>caption</figcaption></figure><form>search</form><p>text</p></body>"
    assert words_after(html) == ["caption", "search", "text"]
    assert words_after(html, CleanOptions(figure=True, furniture=True)) == ["text"]


def test_article_body_keeps_only_the_marked_body_and_the_headline():
    html = (f'<body><h1>The headline</h1><div class="rail">rail text</div>'
            f'<div itemprop="articleBody"><p>{LONG}</p></div><div>footer text</div></body>')
    kept = words_after(html, CleanOptions(article_body=True))
    assert kept[:2] == ["The", "headline"] and "rail" not in kept and "footer" not in kept
    short = '<body><div itemprop="articleBody">teaser only</div><p>real page</p></body>'
    assert "real" in words_after(short, CleanOptions(article_body=True))  # too short to trust


def test_prune_block_drops_tables_iframes_and_divs_with_links_or_images():
    tokens = tokenize("<body><p>keep one</p><table><tr><td>cell</td></tr></table>"
                      '<div>plain div</div><div>see <a href="/x">link</a></div><div><img src=x>photo</div>'
                      "<p>keep two</p></body>")
    everything = (0, len(tokens))
    kept = tokens.text(*everything, prune_block(tokens, *everything, CleanOptions(post_tables=True, post_divs=True)))
    assert kept.split() == ["keep", "one", "plain", "div", "keep", "two"]
    assert "cell" in tokens.text(*everything, prune_block(tokens, *everything, CleanOptions()))


def test_hr_cuts_the_block():
    tokens = tokenize("<body><p>before the rule</p><hr><p>after the rule</p></body>")
    end = cut_at_hr(tokens, 0, len(tokens))
    assert tokens.text(0, end) == "before the rule"
    assert cut_at_hr(tokenize("<p>no rule</p>"), 0, 5) == 5


def test_wrappers_named_like_furniture_are_kept_when_they_hold_the_page_or_prose():
    prose = " ".join(["story"] * 45)
    wrapper = f'<body><div class="share_wrapper"><p>{prose}</p></div><div class="share-bar">Share this</div></body>'
    assert words_after(wrapper).count("story") == 45 and "Share" not in words_after(wrapper)
    layout = '<body><div class="site one-sidebar-right"><p>short one</p><p>short two</p></div><p>x</p></body>'
    assert "short" in words_after(layout)  # holds most of the page's text: a layout class, not a sidebar
    comments = f'<body><p>{LONG}</p><div id="comments"><p>{prose}</p></div></body>'
    assert "story" not in words_after(comments)  # comment sections are prose and still not the article
