"""The untrained default of the MSS fallback: the line scorer, title-anchored selection and the lines
that close an article."""
import numpy as np
import pytest

from sitewise.mss import MSS
from sitewise.mss.boundaries import MAX_BOUNDARY_WORDS, closing_lines
from sitewise.mss.scorers import BOILERPLATE, PROSE, SHORT, BaselineScorer, LineScorer, word_facts
from sitewise.mss.search import best_run_through, max_subsequence
from sitewise.mss.title import headline_alternatives, page_headline, title_heading
from sitewise.mss.tokenize import parse_html, tokenize

PROSE_LINE = ("The council said on Monday that the new bridge would be open to walkers and cyclists by the end "
              "of the year, and that the old one will be kept as a monument.")
MENU = '<ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul>'


def _classes_by_text(html: str) -> dict[str, int]:
    tokens = tokenize(html)
    classes = LineScorer().line_classes(tokens)
    out = {}
    for line in np.unique(tokens.lines):
        words = [w for w, l in zip(tokens.words, tokens.lines) if l == line and w]
        if words:
            out[" ".join(words)] = int(classes[line])
    return out


def test_line_classes_tell_prose_from_menus_and_short_lines():
    classes = _classes_by_text(
        f"<html lang='en'><body>{MENU}<h1>Bridge to open</h1><p>{PROSE_LINE}</p>"
        "<p><a href='/a'>A much longer list of links that goes on</a> and <a href='/b'>on and on for a while "
        "without any end in sight at all</a></p><div>Copyright © 2024 The Paper, all rights reserved in every land</div></body></html>"
    )
    assert classes["Home"] == BOILERPLATE  # short and linked
    assert classes["Bridge to open"] == SHORT
    assert next(c for text, c in classes.items() if text.startswith("The council")) == PROSE
    assert next(c for text, c in classes.items() if text.startswith("A much longer")) == BOILERPLATE  # links
    assert next(c for text, c in classes.items() if text.startswith("Copyright")) == BOILERPLATE


def test_line_scorer_scores_prose_words_up_and_menu_words_down():
    tokens = tokenize(f"<html lang='en'><body>{MENU}<p>{PROSE_LINE}</p></body></html>")
    scores = LineScorer().score(tokens)
    words = [i for i, w in enumerate(tokens.words) if w]
    assert scores[words[0]] == LineScorer.BOILERPLATE_WORD  # "Home"
    assert scores[words[-1]] == LineScorer.PROSE_WORD
    assert scores[tokens.tags.index("a")] == LineScorer.INLINE_TAG
    assert scores[tokens.tags.index("ul")] == LineScorer.BLOCK_TAG


def test_word_facts_flag_every_copyright_word_and_sign():
    tokens = tokenize("<html><body><p>Copyright notes</p><p>copyrighted work, © 2024 COPYRIGHT</p>"
                      "<p>copyright</p></body></html>")
    facts = word_facts(tokens)
    assert [w for w, flag in zip(facts.words, facts.copyright_word) if flag] == ["Copyright", "COPYRIGHT", "copyright"]
    assert [w for w, flag in zip(facts.words, facts.copyright_sign) if flag] == ["©"]
    assert word_facts(tokenize("<p>none here</p>")).copyright_word.tolist() == [False, False]
    assert facts.words == [tokens.words[i] for i in facts.index.tolist()] == [
        "Copyright", "notes", "copyrighted", "work", ",", "©", "2024", "COPYRIGHT", "copyright"]


def test_a_page_in_a_language_without_stop_words_is_judged_by_length_and_links():
    # a declared language with no stop-word list, and English words that are not stop words of it:
    # long unlinked lines must still count as prose, not all become boilerplate
    text = " ".join(["Lorem ipsum dolor sit amet consectetur adipiscing elit"] * 6)
    tokens = tokenize(f"<html lang='xx'><body>{MENU}<p>{text}</p></body></html>")
    classes = LineScorer().line_classes(tokens)
    assert classes[tokens.lines[tokens.words.index("Lorem")]] == PROSE


def test_page_headline_prefers_og_title_then_the_longest_part_of_the_title():
    og = parse_html('<html><head><meta property="og:title" content="Bridge to open in May">'
                    "<title>Bridge | The Paper</title></head><body></body></html>")
    assert page_headline(og) == ["bridge", "to", "open", "in", "may"]
    titled = parse_html("<html><head><title>The Paper - Bridge to open in May</title></head><body></body></html>")
    assert page_headline(titled) == ["bridge", "to", "open", "in", "may"]
    assert page_headline(parse_html("<html><body><p>x</p></body></html>")) == []


def test_title_heading_is_the_heading_that_repeats_the_headline_not_the_site_name():
    root = parse_html(
        "<html><head><title>Bridge to open in May | The Paper</title></head><body>"
        "<h1>The Paper</h1><ul><li><h3>Council budget vote</h3></li></ul>"
        "<h2 class='entry-title'><a href='/bridge'>Bridge to open in May</a></h2><p>text</p></body></html>"
    )
    heading = title_heading(root, page_headline(root))
    assert heading is not None and heading.tag == "h2"
    assert title_heading(root, ["unrelated", "words", "here"]) is None


def test_title_heading_reads_named_elements_case_insensitively_and_skips_long_ones():
    long_text = " ".join(["bridge to open in may"] * 10)  # 50 words: a section, not a heading
    root = parse_html(
        "<html><head><title>Bridge to open in May | The Paper</title></head><body>"
        f"<div class='Page-TITLE-wrap'><p>{long_text}</p><div class='Post-Headline'>Bridge to open in May</div>"
        "</div></body></html>"
    )
    heading = title_heading(root, page_headline(root))
    assert heading is not None and heading.get("class") == "Post-Headline"


def test_title_heading_folds_only_ascii_letters_of_names():
    # "tıtle" (dotless ı) folds to "title" under Unicode case folding; the names were always matched with
    # only ASCII letters folded, so it names no title
    page = ("<html><head><title>Bridge to open in May | The Paper</title></head><body>"
            "<div class='post-t\u0131tle'>Bridge to open in May</div><p>text</p></body></html>")
    assert title_heading(parse_html(page), ["bridge", "to", "open", "in", "may"]) is None
    assert title_heading(parse_html(page.replace("\u0131", "I")), ["bridge", "to", "open", "in", "may"]) is not None


def test_title_heading_matches_headlines_written_without_spaces():
    # Chinese and Japanese put no spaces between words, and separate the site's name with a full-width bar
    chinese = ("<html lang='zh'><head><title>咖啡指南｜博客</title></head><body><h2>博客</h2>"
               "<h1>咖啡指南</h1><p>text</p></body></html>")
    root = parse_html(chinese)
    assert page_headline(root) == ["咖", "啡", "指", "南"]
    assert title_heading(root, page_headline(root)).tag == "h1"
    japanese = ("<html lang='ja'><head><title>市立図書館が二年ぶりに再開 - 毎日ニュース</title></head><body>"
                "<h1>市立図書館が二年ぶりに再開</h1><p>text</p></body></html>")
    root = parse_html(japanese)
    assert title_heading(root, page_headline(root)) is not None
    # a Thai headline runs past MAX_HEADING_WORDS characters
    thai = ("<html lang='th'><head><title>ห้องสมุดเมืองเปิดอีกครั้งหลังปรับปรุงสองปี | ข่าววันนี้</title></head><body>"
            "<h1>ห้องสมุดเมืองเปิดอีกครั้งหลังปรับปรุงสองปี</h1><p>text</p></body></html>")
    root = parse_html(thai)
    assert title_heading(root, page_headline(root)) is not None


def test_title_heading_sees_a_second_html_element_left_beside_the_first():
    # libxml2 keeps a second <html> after the page's last </html> as a sibling of the root (an earlier
    # </html> is removed before parsing); the heading search has always looked there
    root = parse_html("<html><head><title>Bridge to open in May | The Paper</title></head><body><p>a</p>"
                      "</body></html><html><body><h2>Bridge to open in May</h2></body>")
    heading = title_heading(root, page_headline(root))
    assert heading is not None and heading.tag == "h2" and heading.getparent().getparent() is root.getnext()


def test_best_run_through_an_index_contains_it():
    scores = np.array([5.0, -10.0, 1.0, 1.0, -1.0, 2.0, -10.0, 3.0])
    assert max_subsequence(scores).start == 0
    through = best_run_through(scores, 3)
    assert (through.start, through.end, through.value) == (2, 6, 3.0)
    with pytest.raises(IndexError):
        best_run_through(scores, 8)


@pytest.mark.parametrize("line, closes", [
    ("Leave a Reply", True), ("12 Comments", True), ("Comments (4)", True), ("Related Posts", True),
    ("About the author", True), ("You may also like", True), ("3 responses to “Bridge to open”", True),
    ("Comments are closed.", True),
    ("Comments from readers were mostly kind, the editor said after the vote.", False),
    ("Related work", False), ("Posted by Ada", False),
])
def test_closing_lines_are_whole_line_section_headings(line, closes):
    tokens = tokenize(f"<html><body><p>{PROSE_LINE}</p><h3>{line}</h3><p>{PROSE_LINE}</p></body></html>")
    assert bool(closing_lines(tokens).size) == closes


def test_a_closing_line_is_measured_in_words_not_punctuation():
    # WordPress titles its thread "46 Comments on “<the post's title>”": 13 words, and the quotes, the
    # question mark and the ellipsis make 18 tokens; the line is short all the same.
    title = "Can 187,586 Buyers Be Wrong? Consumer Reports Thinks So..."
    heading = f"46 Comments on “{title}”"
    tokens = tokenize(f"<html><body><p>{PROSE_LINE}</p><h2>{heading}</h2><p>{PROSE_LINE}</p></body></html>")
    assert [tokens.words[i] for i in closing_lines(tokens)] == ["46"]
    assert closing_lines(tokens, count_symbols=True).size == 0  # as the block model's features read it
    seventeen = "46 Comments on " + " ".join(["word"] * 14)  # a line of MAX_BOUNDARY_WORDS + 1 words is text
    assert len(seventeen.split()) == MAX_BOUNDARY_WORDS + 1
    tokens = tokenize(f"<html><body><p>{PROSE_LINE}</p><h2>{seventeen}</h2><p>{PROSE_LINE}</p></body></html>")
    assert closing_lines(tokens).size == 0


def test_closing_lines_give_the_first_word_token_of_each_such_line():
    tokens = tokenize(f"<html><body><p>{PROSE_LINE}</p><h3><span>12</span> <em>Comments</em></h3><p>{PROSE_LINE}</p>"
                      "<h4>Related posts</h4><p>Teaser</p></body></html>")
    found = closing_lines(tokens).tolist()
    assert [tokens.words[i] for i in found] == ["12", "Related"]
    assert closing_lines(tokens).dtype == np.int64
    assert closing_lines(tokenize("")).size == 0 and closing_lines(tokenize("<p></p>")).size == 0


def test_a_linked_comment_count_is_not_a_boundary():
    tokens = tokenize(f"<html><body><p>{PROSE_LINE}</p><div><a href='#comments'>12 Comments</a></div></body></html>")
    assert closing_lines(tokens).size == 0
    # StackExchange's "Add a comment |": the words are a link, the separator beside it does not unlink the line
    tokens = tokenize(f"<html><body><p>{PROSE_LINE}</p><div><a href='#'>Add a comment</a> |</div></body></html>")
    assert closing_lines(tokens).size == 0 and closing_lines(tokens, count_symbols=True).size == 1


COMMENTS = "".join(
    f"<div class='c{n}'><p>{PROSE_LINE} Reader {n} agrees with this and says so at length here.</p>"
    f"<span>Posted by reader {n}</span></div>" for n in range(8)
)


def test_a_comment_thread_without_comment_names_is_left_out():
    html = (f"<html lang='en'><head><title>Bridge to open</title></head><body><h1>Bridge to open</h1>"
            f"<p>{PROSE_LINE}</p><p>{PROSE_LINE}</p><h3>8 Comments</h3>{COMMENTS}</body></html>")
    for pipeline in (MSS(), MSS(BaselineScorer())):
        result = pipeline.extract(html)
        assert "Bridge to open" in result.text and "Reader" not in result.text
    assert "Reader" in MSS(boundaries=False).extract(html).text


def test_a_short_post_under_its_title_beats_a_longer_blurb_elsewhere():
    blurb = PROSE_LINE
    html = ("<html lang='en'><head><title>Bridge to open | Blog</title></head><body>"
            f"<div class='about'><p>{blurb}</p></div>{MENU * 10}"
            "<h2><a href='/bridge'>Bridge to open</a></h2><p>The council says walkers first, then bikes.</p>"
            "</body></html>")
    anchored = MSS().extract(html)
    assert anchored.found and "walkers first" in anchored.text and "monument" not in anchored.text
    assert "monument" in MSS(title_anchor=False).extract(html).text


def test_a_picture_post_is_its_title_heading_alone():
    html = ("<html lang='en'><head><title>Bridge at dawn | Blog</title></head><body>"
            f"{MENU * 10}<h2 class='entry-title'>Bridge at dawn</h2><p><img src='bridge.jpg'></p></body></html>")
    assert MSS().extract(html).text.strip() == "Bridge at dawn"
    assert not MSS(title_anchor=False).extract(html).found


def test_an_archive_heading_above_links_is_not_an_article():
    months = "".join(f"<p><a href='/2006/{m}'>{m} 2006</a></p>" for m in ("Dec", "Nov", "Oct", "Sep", "Aug", "Jul",
                                                                              "Jun", "May", "Apr", "Mar", "Feb", "Jan"))
    html = ("<html lang='en'><head><title>Parenting Blog Archive</title></head><body>"
            f"{MENU * 10}<h2>Parenting Blog Archive</h2>{months}<p><img src='logo.png'></p></body></html>")
    assert not MSS().extract(html).found


def test_a_short_story_title_beside_a_longer_site_name_anchors_the_run():
    root = parse_html("<html><head><title>Almost There - Hacker Monthly Blog</title></head><body></body></html>")
    assert page_headline(root) == ["hacker", "monthly", "blog"]
    assert headline_alternatives(root) == [["almost", "there"]]
    colon = parse_html("<html><head><title>Schneier on Security: New SSL Vulnerability</title></head></html>")
    assert headline_alternatives(colon) == [["schneier", "on", "security"], ["new", "ssl", "vulnerability"]]
    html = ("<html lang='en'><head><title>Almost There - Hacker Monthly Blog</title></head><body>"
            f"<div class='about'><p>{PROSE_LINE}</p></div>{MENU * 10}"
            "<h2>Almost There</h2><p>By Lim, 28 May 2010: the last issue is at the printer.</p></body></html>")
    result = MSS().extract(html)
    assert "last issue" in result.text and "monument" not in result.text


def test_a_site_name_found_through_another_title_part_is_not_an_article_alone():
    html = ("<html lang='en'><head><title>Daily Paper - Archive of all posts by month</title></head><body>"
            f"<h1><a href='/'>Daily Paper</a></h1>{MENU * 10}</body></html>")
    result = MSS().extract(html)
    assert not result.found and "no paragraph" in result.reason


def test_the_shipped_block_model_is_the_default_and_the_line_scorer_the_last_resort(tmp_path, monkeypatch):
    from sitewise.extractors import get_extractor
    from sitewise.mss import model
    from sitewise.mss.blockmodel import BlockModel
    from sitewise.mss.extractor import BlockMSS, load_scorer

    monkeypatch.setenv("SITEWISE_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SITEWISE_MSS_MODEL", raising=False)
    assert isinstance(load_scorer(), BlockModel)  # shipped in the package
    assert isinstance(get_extractor("mss").pipeline, BlockMSS)
    with pytest.raises(ValueError, match="token pipeline"):
        get_extractor("mss", title_anchor="no")
    monkeypatch.setattr(model, "SHIPPED_MODEL", tmp_path / "absent.json.gz")
    assert isinstance(load_scorer(), LineScorer)
    extractor = get_extractor("mss-line", title_anchor="no", boundaries="off")
    assert isinstance(extractor.pipeline.scorer, LineScorer)
    assert not extractor.pipeline.title_anchor and not extractor.pipeline.boundaries
