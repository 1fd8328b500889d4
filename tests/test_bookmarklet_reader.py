"""The bookmarklet's panel and highlight for every reader, in real Chromium: on a phone (touch, a narrow
screen, 200% zoom), with a keyboard or a screen reader, on a right-to-left page, and on pages whose own
CSS fights it (a transformed root, an overlay above every z-index, white text on a dark block)."""
from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from bookmarklet_support import body_of, chromium, click_bookmarklet, highlighted, loader_code, loopback_only, serve_app, serve_html
from server_support import settings_for
from sitewise.server import create_app
from sitewise.store import Store

pytestmark = pytest.mark.browser

#: A phone as Playwright emulates one: 360×640 CSS px at 3 device pixels each, touch (pointer: coarse).
PHONE = {"viewport": {"width": 360, "height": 640}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
#: The smallest touch target (CSS px) Apple's and Android's guidance and WCAG 2.5.5 ask for.
TOUCH_TARGET = 44

PARAGRAPHS = "".join(f"<p>Paragraph {i}: the harbour workers voted to end the strike after nine days of talks at the port.</p>"
                     for i in range(8))
ARABIC = "".join(f"<p>الفقرة {i}: صوّت عمال الميناء على إنهاء الإضراب بعد تسعة أيام من المحادثات الطويلة في المدينة.</p>"
                 for i in range(8))
HEBREW = "".join(f"<p>פסקה {i}: עובדי הנמל הצביעו על סיום השביתה אחרי תשעה ימים של שיחות ארוכות בעיר.</p>" for i in range(8))
DARK_BLOCK = "<p id=dark style='background: #036; color: #fff'>White on dark blue: the harbour workers voted to end the strike after nine days.</p>"


def page(article: str, html_attributes: str = "", head: str = "") -> str:
    return (f"<!DOCTYPE html><html {html_attributes}><head><meta name=viewport content='width=device-width'>"
            f"<title>Harbour strike ends</title>{head}</head><body><nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
            f"<article><h1>Harbour strike ends</h1>{article}</article><footer>Harbour Gazette</footer></body></html>")


PAGES = {
    "/story": ("", page(PARAGRAPHS)),
    "/arabic": ("", page(ARABIC, 'dir="rtl" lang="ar"')),
    "/hebrew": ("", page(HEBREW, 'dir="rtl" lang="he"')),
    # A transformed root element makes it the containing block of position: fixed (Chromium, Firefox).
    "/transformed": ("", page(PARAGRAPHS * 6, head="<style>html { transform: translateZ(0) }</style>")),
    "/dark-block": ("", page(DARK_BLOCK + PARAGRAPHS)),
}

#: The panel's box (the dialog) as the viewport sees it.
PANEL_BOX_JS = """() => JSON.stringify(document.querySelector('sitewise-panel').shadowRoot.querySelector('[role=dialog]')
  .getBoundingClientRect())"""

#: What the panel's note (a polite live region) says.
PANEL_NOTE_JS = "() => document.querySelector('sitewise-panel').shadowRoot.querySelector('.note').textContent"

#: The element focused inside the panel's shadow root, as "role or tag: text".
PANEL_FOCUS_JS = """() => { const host = document.querySelector('sitewise-panel'); const focused = host && host.shadowRoot.activeElement;
  return document.activeElement === host && focused ? (focused.getAttribute('role') || focused.localName) + ': ' +
    (focused.getAttribute('role') ? '' : focused.textContent) : null; }"""


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_html(PAGES) as base_url:
        yield base_url


@pytest.fixture
def server(store: Store, tmp_path) -> Iterator[str]:
    with serve_app(create_app(settings_for(tmp_path), store)) as url:
        yield url


@pytest.fixture
def open_tab(browser):
    """open_tab(**context options) → a tab that reaches only loopback; every context is closed after the test."""
    contexts = []

    def opened(**options: Any) -> Any:
        context = browser.new_context(**options)
        contexts.append(context)
        tab = context.new_page()
        tab.route("**/*", loopback_only)
        return tab

    yield opened
    for context in contexts:
        context.close()


def panel_box(tab: Any) -> dict[str, float]:
    return json.loads(tab.evaluate(PANEL_BOX_JS))


def pressed(tab: Any, key: str, then: str = PANEL_FOCUS_JS) -> Any:
    """Press ``key`` in ``tab``; what the script ``then`` gives after (by default, where the panel's focus is)."""
    tab.keyboard.press(key)
    return tab.evaluate(then)


def story_tab(open_tab: Any, server: str, site: str, **options: Any) -> Any:
    """A tab (``options`` as open_tab's, a desktop window by default) on /story with the bookmarklet's run done."""
    tab = open_tab(**(options or DESKTOP))
    tab.goto(site + "/story")
    click_bookmarklet(tab, server)
    return tab


def test_every_panel_button_is_a_touch_target_on_a_phone(open_tab, server, site):
    tab = open_tab(**PHONE)
    tab.goto(site + "/story")
    click_bookmarklet(tab, server)
    sizes = tab.evaluate("""() => [...document.querySelector('sitewise-panel').shadowRoot.querySelectorAll('button')]
      .map(b => [b.getAttribute('aria-label') || b.textContent, b.getBoundingClientRect().width, b.getBoundingClientRect().height])""")
    assert [name for name, _, _ in sizes] == ["sitewise panel", "Close", "Highlight on", "Copy text", "Report a block"]
    assert all(width >= TOUCH_TARGET and height >= TOUCH_TARGET for _, width, height in sizes), sizes


@pytest.mark.parametrize("width, height", [(320, 568), (180, 320)], ids=["small-phone", "phone-at-200%-zoom"])
def test_the_panel_fits_a_narrow_screen(open_tab, server, site, width, height):
    """The panel was 320px wide whatever the screen: on a 320px phone its left edge was off screen, at
    200% zoom half of it (it is fixed: no scrolling brings it back)."""
    tab = open_tab(viewport={"width": width, "height": height})
    tab.goto(site + "/story")
    click_bookmarklet(tab, server)
    box = panel_box(tab)
    assert box["left"] >= 0 and box["right"] <= width, box
    assert box["top"] >= 0 and box["bottom"] <= height, box
    # What does not fit scrolls inside the panel: the last line can be reached.
    tab.evaluate("() => { const p = document.querySelector('sitewise-panel').shadowRoot.querySelector('[role=dialog]');"
                 " p.scrollTop = p.scrollHeight; }")
    assert tab.locator("sitewise-panel").get_by_text("Page stored").is_visible()


@pytest.mark.parametrize("path, page_language", [("/arabic", "ar"), ("/hebrew", "he")])
def test_the_english_panel_reads_left_to_right_on_a_right_to_left_page(open_tab, server, site, path, page_language):
    """`all: initial` does not reset direction: the panel took the page's rtl, so "136 words in 8 blocks
    highlighted." showed as "words in 8 blocks 136 … .highlighted", and a screen reader read it with the
    page's (Arabic, Hebrew) voice."""
    tab = open_tab(**PHONE)
    tab.goto(site + path)
    state = click_bookmarklet(tab, server)
    assert state["error"] is None and len(highlighted(tab)) >= 8
    assert tab.evaluate("() => document.documentElement.lang") == page_language
    dialog = tab.locator("sitewise-panel").get_by_role("dialog")
    assert dialog.evaluate("d => [getComputedStyle(d).direction, d.lang]") == ["ltr", "en"]
    # Left to right: the brand at the left of the close button, the word count right of the method badge.
    brand, close = (tab.locator("sitewise-panel").locator(s).bounding_box() for s in (".brand", "button.close"))
    assert brand["x"] < close["x"]
    badge_right, count_left = tab.locator("sitewise-panel").locator(".status").evaluate(
        "p => { const count = document.createRange(); count.setStart(p.lastChild, 0); count.setEnd(p.lastChild, 1);"
        " return [p.firstChild.getBoundingClientRect().right, count.getBoundingClientRect().left]; }")
    assert badge_right <= count_left


def test_the_panel_stays_on_screen_and_above_the_page(open_tab, server, site):
    """On a page that transforms its root the fixed panel scrolled away with the page (a reader in the
    middle of an article saw nothing), and an overlay the page adds later above every z-index hid it."""
    tab = open_tab(**PHONE)
    tab.goto(site + "/transformed")
    tab.evaluate("() => window.scrollTo(0, document.body.scrollHeight / 2)")
    click_bookmarklet(tab, server)
    tab.evaluate("""() => { const overlay = document.createElement('div');
      overlay.style.cssText = 'position: fixed; inset: 0; z-index: 2147483647; background: rgba(0, 0, 0, .5)';
      document.documentElement.appendChild(overlay); }""")
    box = panel_box(tab)
    assert tab.evaluate("() => window.scrollY") > 1000
    assert 0 <= box["top"] and box["bottom"] <= PHONE["viewport"]["height"], box
    on_top = tab.evaluate(f"() => document.elementFromPoint({box['left'] + box['width'] / 2}, {box['top'] + 20}).localName")
    assert on_top == "sitewise-panel"


def test_the_panel_works_from_the_keyboard(open_tab, server, site):
    """The panel was the last stop of the page's tab order (after every link of the page), a button
    pressed from the keyboard lost the focus (the panel is redrawn), and Escape did nothing."""
    tab = open_tab(viewport={"width": 1280, "height": 900})
    tab.goto(site + "/story")
    click_bookmarklet(tab, server)
    assert tab.evaluate(PANEL_FOCUS_JS) == "dialog: "
    tab.keyboard.press("Tab")
    assert tab.evaluate(PANEL_FOCUS_JS) == "button: −"
    tab.keyboard.press("Tab")
    assert tab.evaluate(PANEL_FOCUS_JS) == "button: ×"
    tab.keyboard.press("Tab")
    assert tab.evaluate(PANEL_FOCUS_JS) == "button: Highlight on"
    tab.keyboard.press("Enter")
    assert highlighted(tab) == []
    assert tab.evaluate(PANEL_FOCUS_JS) == "button: Highlight off"
    tab.keyboard.press("Space")
    assert len(highlighted(tab)) >= 8
    # Escape in report mode ends report mode only; then it closes the panel.
    tab.keyboard.press("Tab")
    tab.keyboard.press("Tab")
    tab.keyboard.press("Enter")
    assert tab.evaluate(PANEL_FOCUS_JS) == "button: Done reporting"
    tab.keyboard.press("Escape")
    assert tab.evaluate(PANEL_FOCUS_JS) == "button: Report a block"
    tab.keyboard.press("Escape")
    assert tab.evaluate("() => document.querySelector('sitewise-panel') === null && !window.sitewise")


def test_a_screen_reader_hears_the_status_change(open_tab, server, site):
    """A live region is announced when its content changes, not when it is inserted: the panel was
    redrawn whole, so "Reading the page…" and then the result were never announced."""
    tab = open_tab(viewport={"width": 1280, "height": 900})
    tab.goto(site + "/story")
    tab.evaluate(loader_code(server))
    tab.wait_for_function("() => document.querySelector('sitewise-panel')")
    tab.evaluate("() => { window.firstStatus = document.querySelector('sitewise-panel').shadowRoot.querySelector('[role=status]'); }")
    tab.wait_for_function("() => window.sitewise.ready && window.sitewise.state.article.length")
    tab.evaluate("() => window.sitewise.ready")
    assert tab.evaluate("() => window.firstStatus !== null && window.firstStatus.isConnected")
    assert "words in" in tab.evaluate("() => window.firstStatus.textContent")


def test_the_highlight_keeps_a_blocks_own_background(open_tab, server, site):
    """The wash replaced the block's background colour: white text on a dark block became white on pale
    yellow. Nor does the highlight take room: no block changes size."""
    tab = open_tab(**PHONE)
    tab.goto(site + "/dark-block")
    sizes = "() => JSON.stringify([...document.querySelectorAll('article > *')].map(e => [e.offsetWidth, e.offsetHeight]))"
    before = tab.evaluate(sizes)
    click_bookmarklet(tab, server)
    assert tab.evaluate("() => window.sitewise.highlightedElements().includes(document.getElementById('dark'))")
    assert tab.evaluate("() => getComputedStyle(document.getElementById('dark')).backgroundColor") == "rgb(0, 51, 102)"
    assert tab.evaluate(sizes) == before


def test_the_panel_minimises_to_a_chip_that_keeps_the_highlight(open_tab, server, site):
    """On a phone the panel covered half the screen (310 of 640px) and the only way out of it was Close,
    which takes the highlight away too."""
    tab = story_tab(open_tab, server, site, **PHONE)
    shown = highlighted(tab)
    panel = tab.locator("sitewise-panel")
    expanded = panel_box(tab)
    panel.get_by_role("button", name="sitewise panel", expanded=True).click()
    chip = panel_box(tab)
    # A chip in the corner: a sixth of the panel's area at most, one touch target tall (and its padding).
    assert chip["width"] * chip["height"] <= expanded["width"] * expanded["height"] / 6, (chip, expanded)
    assert chip["height"] <= TOUCH_TARGET + 16 and chip["top"] >= 0 and chip["right"] <= PHONE["viewport"]["width"], chip
    middle = f"{expanded['left'] + expanded['width'] / 2}, {expanded['top'] + expanded['height'] / 2}"
    assert tab.evaluate(f"() => document.elementFromPoint({middle}).localName") != "sitewise-panel"
    assert highlighted(tab) == shown and outline_of(tab, "article p:has-text('Paragraph 0')").startswith("solid")
    toggle = panel.get_by_role("button", name="sitewise panel", expanded=False)
    size = toggle.bounding_box()
    assert size["width"] >= TOUCH_TARGET and size["height"] >= TOUCH_TARGET, size
    toggle.click()
    assert panel_box(tab) == expanded
    assert panel.get_by_role("button", name="Report a block").is_visible()


def test_the_minimise_toggle_works_from_the_keyboard(open_tab, server, site):
    """The toggle is the first stop after the dialog, keeps the focus, and says its state (aria-expanded)."""
    tab = story_tab(open_tab, server, site)
    panel = tab.locator("sitewise-panel")
    assert pressed(tab, "Tab") == "button: −"
    assert pressed(tab, "Enter") == "button: +"
    assert panel.get_by_role("button", name="sitewise panel", expanded=False).count() == 1
    # Minimised, the hidden buttons are out of the tab order: Tab goes on to Close.
    assert pressed(tab, "Tab") == "button: ×"
    assert pressed(tab, "Shift+Tab") == "button: +"
    assert pressed(tab, "Space") == "button: −"
    assert panel.get_by_role("button", name="sitewise panel", expanded=True).count() == 1
    assert len(highlighted(tab)) >= 8


def outline_of(tab: Any, selector: str) -> str:
    """An element's outline as drawn: style and colour ("none" when it has none)."""
    return tab.locator(selector).evaluate("e => getComputedStyle(e).outlineStyle === 'none' ? 'none' :"
                                          " getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).outlineColor")


def test_a_highlighted_block_keeps_its_outline_after_the_pointer_leaves_it(open_tab, server, site):
    """In report mode the pointer's dashed outline replaced the highlight's, and leaving the block gave back
    the page's own outline (none): every block the pointer had crossed lost its highlight outline."""
    tab = story_tab(open_tab, server, site)
    highlight = outline_of(tab, "article p:has-text('Paragraph 2')")
    assert highlight.startswith("solid")
    tab.locator("sitewise-panel").get_by_role("button", name="Report a block").click()
    tab.hover("article p:has-text('Paragraph 2')")
    assert outline_of(tab, "article p:has-text('Paragraph 2')").startswith("dashed")
    tab.hover("article p:has-text('Paragraph 5')")
    assert outline_of(tab, "article p:has-text('Paragraph 2')") == highlight
    tab.keyboard.press("Escape")
    assert outline_of(tab, "article p:has-text('Paragraph 5')") == highlight


def marks_sent(tab: Any) -> list[dict[str, Any]]:
    """The bodies of the marks ``tab`` sends (POST /api/feedback) from now on, as they are sent."""
    sent: list[dict[str, Any]] = []
    tab.on("request", lambda request: "/api/feedback" in request.url
           and sent.append(json.loads(body_of(request.post_data_buffer))))
    return sent


def wait_for_panel_text(tab: Any, text: str) -> None:
    tab.wait_for_function("text => document.querySelector('sitewise-panel').shadowRoot.textContent.includes(text)", arg=text)


def test_a_block_is_reported_from_the_keyboard_alone(open_tab, server, site):
    """Report mode took a click or a tap on the block: a keyboard user could not report one."""
    clicker = story_tab(open_tab, server, site)
    clicked = marks_sent(clicker)
    clicker.locator("sitewise-panel").get_by_role("button", name="Report a block").click()
    clicker.locator("article p:has-text('Paragraph 2')").click()
    wait_for_panel_text(clicker, "Thanks")

    tab = story_tab(open_tab, server, site)
    typed = marks_sent(tab)
    assert [pressed(tab, "Tab") for _ in range(5)][-1] == "button: Report a block"  # after −, ×, Highlight, Copy
    assert pressed(tab, "Enter") == "button: Done reporting"
    # Blocks: the navigation, the headline, the 8 paragraphs, the footer. Tab goes to the first, round the
    # ends, and the note (a polite live region) says which block the ring is on.
    assert pressed(tab, "Tab", PANEL_NOTE_JS) == "Block 1 of 11: Home News"
    assert pressed(tab, "Shift+Tab", PANEL_NOTE_JS) == "Block 11 of 11: Harbour Gazette"
    notes = [pressed(tab, key, PANEL_NOTE_JS) for key in ["ArrowDown"] * 6 + ["ArrowUp"]]
    assert notes[-1] == "Block 5 of 11 (article): Paragraph 2: the harbour workers voted to end the strike…"
    assert outline_of(tab, "article p:has-text('Paragraph 2')") == "solid rgb(26, 115, 232)"
    assert tab.evaluate(PANEL_FOCUS_JS) == "button: Done reporting"  # the focus stayed in the panel
    tab.keyboard.press("Enter")
    wait_for_panel_text(tab, "Thanks")
    assert typed == clicked and [mark["kind"] for mark in typed] == ["not_article"]
    assert not any(text.startswith("Paragraph 2") for text in highlighted(tab))
    # Space marks too: the block is article text after all (a "missing" mark).
    tab.keyboard.press("Space")
    wait_for_panel_text(tab, "missing article text")
    assert [mark["kind"] for mark in typed] == ["not_article", "missing"]
    # Escape leaves report mode and takes the ring away; the highlight is the article's again.
    assert pressed(tab, "Escape") == "button: Report a block"
    assert outline_of(tab, "article p:has-text('Paragraph 2')").startswith("solid rgba(232, 170, 20")


def test_report_mode_leaves_the_pages_own_keys_alone(open_tab, server, site):
    """Report mode's keys act only while the focus is in the panel: a link of the page keeps its Tab."""
    tab = story_tab(open_tab, server, site)
    tab.evaluate("() => { window.pageKeys = []; document.addEventListener('keydown', e => pageKeys.push(e.key)); }")
    tab.locator("sitewise-panel").get_by_role("button", name="Report a block").click()
    assert pressed(tab, "ArrowDown", PANEL_NOTE_JS) == "Block 1 of 11: Home News"  # the panel's: the page does not hear it
    tab.focus("nav a")
    tab.keyboard.press("Tab")
    assert tab.evaluate("() => document.activeElement.textContent") == "News"
    assert tab.evaluate(PANEL_NOTE_JS) == "Block 1 of 11: Home News"
    assert tab.evaluate("() => pageKeys") == ["Tab"]
