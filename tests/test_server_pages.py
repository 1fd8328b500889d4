"""The install page, the dashboard and the served scripts: they render, and nothing from an uploaded page
is ever HTML on our pages (script-bearing text comes out escaped, under a strict CSP)."""
from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from sitewise.server import create_app
from sitewise.server.bookmarklet import bookmarklet_href
from server_support import block, page_dict, settings_for
from sitewise.store import Store

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
#: The dashboard shows page addresses, text and marks to the administrator only (settings_for's token).
ADMIN = {"Authorization": "Bearer s3cret"}


@pytest.fixture
def client(store: Store, tmp_path):
    app = create_app(settings_for(tmp_path), store)
    app.testing = True
    return app.test_client()


def test_install_page_has_the_bookmarklet_link(client):
    response = client.get("/", base_url="http://sitewise.test:8080")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    href = re.search(r'class="bookmarklet" href="([^"]+)"', html).group(1)
    code = unquote(href.replace("&#34;", '"').replace("&#39;", "'").replace("&amp;", "&"))
    assert code.startswith("javascript:(function ()")
    assert '"http://sitewise.test:8080"' in code
    assert "/bookmarklet/sitewise.js?v=" in code
    assert "Drag the button to your bookmarks bar" in html
    assert "What it never sends" in html
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]


def test_loader_href_is_one_line_and_quotes_a_hostile_host():
    href = bookmarklet_href('http://evil"; alert(1); "')
    code = unquote(href)
    assert "\n" not in code and "//" not in code.replace("://", "")
    assert '"http://evil\\"; alert(1); \\""' in code


def test_scripts_are_served_with_revalidation(client):
    response = client.get("/bookmarklet/sitewise.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    body = response.get_data(as_text=True)
    assert "window.sitewiseCollect = sitewiseCollect" in body and "window.sitewise = api" in body
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    again = client.get("/bookmarklet/sitewise.js", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304
    assert client.get("/bookmarklet/collect.js").status_code == 200


def test_dashboard_lists_sites_and_previews_a_page(client, store):
    data = page_dict("https://news.example/a/1", blocks=0)
    data["blocks"] = [block("Home News Sport", "body > nav.menu > ul > li", "li")] + [
        block(f"The harbor workers voted on the new contract, paragraph {i}, and the port was quiet again "
              "for the first time since the long strike began in the cold spring.",
              "body > main > article.story > p", top=200 + 60 * i) for i in range(6)]
    assert client.post("/api/pages", json=data).status_code == 201
    listing = client.get("/sites").get_data(as_text=True)
    assert "news.example" in listing and "not learned" in listing
    response = client.get("/sites/news.example", headers=ADMIN)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Article by <strong>mss</strong>" in html
    assert html.count('<li class="art">') >= 5
    assert '<rect x=' in html


def test_dashboard_of_an_unknown_site_or_page_is_404(client, store):
    assert client.get("/sites/nowhere.example").status_code == 404
    client.post("/api/pages", json=page_dict())
    assert client.get("/sites/news.example?page=https://news.example/missing", headers=ADMIN).status_code == 404


def test_nothing_from_an_uploaded_page_is_rendered_as_html(client, store):
    data = page_dict('https://news.example/a/"><script>alert(2)</script>', blocks=0,
                     titles=[HOSTILE], descriptions=[HOSTILE])
    data["blocks"] = [block(HOSTILE + f" paragraph {i} of a long enough text to count as article text.",
                            "body > main > p", top=100 + 40 * i) for i in range(4)]
    assert client.post("/api/pages", json=data).status_code == 201
    store.put_rules("news.example", {"templates": [{"name": HOSTILE, "match": [], "include": ["main"],
                                                   "exclude": [], "words": [1, 1000]}], "pages_learned": 1})
    client.post("/api/feedback", json={"url": "https://news.example/a/1", "kind": "not_article",
                                       "selector": HOSTILE, "text": HOSTILE})
    for path in ("/sites", "/sites/news.example", "/"):
        html = client.get(path, headers=ADMIN).get_data(as_text=True)
        assert "<script>alert" not in html and "<img src=x" not in html, path
    detail = client.get("/sites/news.example", headers=ADMIN).get_data(as_text=True)
    assert "&lt;script&gt;alert(" in detail  # shown, as text


def test_sites_are_listed_a_hundred_per_page(client, store):
    from sitewise.page import Page

    for i in range(105):
        store.put_page(Page.from_dict(page_dict(f"https://site{i:03d}.example/a")))
    first = client.get("/sites").get_data(as_text=True)
    assert first.count('<td><a href="/sites/') == 100 and "older →" in first and "1–100 of 105" in first
    second = client.get("/sites?offset=100").get_data(as_text=True)
    assert second.count('<td><a href="/sites/') == 5 and "← newer" in second
    assert "site000.example" in second  # oldest last
    assert client.get("/sites?offset=abc").status_code == 200
