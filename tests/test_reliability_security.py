"""Security: admin endpoints need the token, the bookmarklet never sends cookies or form contents, and
nothing from an uploaded page runs as HTML in the dashboard.

Route checks enumerate the app's URL map, so an admin route or a state-changing route added later is
covered without editing this file. The bookmarklet and dashboard checks run in real Chromium.
"""
from __future__ import annotations

import base64
import gzip
import io
import json
import logging
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from reliability_support import http, sitewise_up
from bookmarklet_support import CHROMIUM, CHROMIUM_ARGS, click_bookmarklet, loopback_only, serve_app, serve_html
from sitewise.config import LOG_FORMAT, UNPRINTABLE, LogFormatter
from sitewise.server import create_app
from server_support import page_dict, settings_for
from sitewise.store import Store

TOKEN = "s3cret"
BOOKMARKLET = Path(__file__).resolve().parent.parent / "bookmarklet"
#: The only routes anyone may change state through; everything else that writes is admin-only.
PUBLIC_WRITES = {"/api/pages", "/api/extract", "/api/feedback"}
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


@pytest.fixture
def app(store: Store, tmp_path):
    return create_app(settings_for(tmp_path), store)


def _concrete(rule: str) -> str:
    return re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: "news.example" if m.group(1) == "site" else "x", rule)


def _admin_routes(app) -> list[tuple[str, str]]:
    routes = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) & WRITE_METHODS):
            if rule.rule not in PUBLIC_WRITES:
                routes.append((method, _concrete(rule.rule)))
    return routes


def test_every_state_changing_route_is_public_by_design_or_admin(app):
    routes = _admin_routes(app)
    assert routes, "no admin routes found"
    assert all(path.startswith("/api/admin/") for _, path in routes), routes


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer ", "Bearer wrong", f"Bearer {TOKEN[:-1]}", f"Bearer {TOKEN}x", f"Basic {TOKEN}",
     TOKEN, f"Bearer  {TOKEN.upper()}",
     # The dashboard's Basic sign-in, which a browser then sends along with any site's form posted to us.
     "Basic " + base64.b64encode(f":{TOKEN}".encode()).decode(), "Basic " + base64.b64encode(f"admin:{TOKEN}".encode()).decode()],
)
def test_admin_routes_refuse_a_missing_or_wrong_token(app, store, authorization):
    client = app.test_client()
    assert client.post("/api/pages", json=page_dict("https://news.example/a/1")).status_code == 201
    headers = {} if authorization is None else {"Authorization": authorization}
    for method, path in _admin_routes(app):
        response = client.open(path, method=method, headers=headers, query_string={"key": "https://news.example/a/1", "token": TOKEN})
        assert response.status_code == 401, (method, path, response.status_code)
        assert response.is_json and response.headers["WWW-Authenticate"].startswith("Bearer")
    assert store.page_count("news.example") == 1 and store.sites() == ["news.example"]


def test_admin_routes_work_with_the_token_and_are_off_without_one(store, tmp_path):
    client = create_app(settings_for(tmp_path), store).test_client()
    assert client.post("/api/pages", json=page_dict("https://news.example/a/1")).status_code == 201
    response = client.delete("/api/admin/sites/news.example/pages", query_string={"key": "https://news.example/a/1"},
                             headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200 and store.page_count("news.example") == 0

    disabled = create_app(settings_for(tmp_path, admin_token=""), store)
    for method, path in _admin_routes(disabled):
        response = disabled.test_client().open(path, method=method, headers={"Authorization": "Bearer "})
        assert response.status_code == 403, (method, path)


FORGED = "2026-01-01 00:00:00,000 WARNING sitewise.server.api: admin deleted site news.example"


def test_hostile_paths_urls_and_selectors_cannot_forge_a_log_line(app):
    """The server logs request paths, page keys and marks' selectors, all of them the client's to choose: a
    newline among them would start a line of its own, an ESC drive the operator's terminal."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(LogFormatter(LOG_FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    try:
        client = app.test_client()
        client.post("/api/pages%0A" + quote(FORGED), json={})
        assert client.post("/api/pages", json=page_dict("https://news.example/a/1%0A\x1b[2J\u2028")).status_code == 201
        mark = {"url": "https://news.example/a/1", "kind": "not_article", "selector": f"p\r\n{FORGED}\u202e"}
        assert client.post("/api/feedback", json=mark).status_code == 201
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    lines = stream.getvalue().splitlines()
    assert lines and not any(line.startswith(FORGED) for line in lines), lines
    assert not any(UNPRINTABLE.search(line) for line in lines), lines
    logged = "\n".join(lines)
    assert f"\\n{FORGED}" in logged and f"\\r\\n{FORGED}\\u202e" in logged and "\\x1b[2J\\u2028" in logged


def test_hostile_paths_cannot_forge_a_line_in_gunicorns_access_log(tmp_path):
    """``sitewise up --access-log``: gunicorn writes each request's decoded path in its own log line, which
    the app's log formatter never sees."""
    with sitewise_up(tmp_path / "data", "--access-log", "--workers", "1", "--web-processes", "1") as up:
        status, _, _ = http("GET", f"{up.base_url}/x%0A{quote(FORGED)}%1B[2J%E2%80%A8")
        assert status == 404
        up.wait_for_log("/x")
    lines = up.log.splitlines()
    assert not any(FORGED in line and "/x" not in line for line in lines), lines
    assert not any("\x1b" in line for line in lines), lines
    assert "/x\\n" + FORGED + "\\x1b[2J" in up.log, lines


def test_every_answer_says_nosniff_and_no_page_may_be_framed(app):
    client = app.test_client()
    assert client.post("/api/pages", json=page_dict("https://news.example/a/1")).status_code == 201
    script = client.get("/bookmarklet/sitewise.js")
    answers = {path: client.get(path) for path in ("/", "/sites", "/sites/news.example", "/sites/nowhere.example",
                                                  "/static/style.css", "/api/sites", "/rules/news.example")}
    answers["304 script"] = client.get("/bookmarklet/sitewise.js", headers={"If-None-Match": script.headers["ETag"]})
    for name, response in {**answers, "script": script}.items():
        assert response.headers.get("X-Content-Type-Options") == "nosniff", name
        if response.mimetype == "text/html":
            assert response.headers["X-Frame-Options"] == "DENY", name
            assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"], name


#: The administrator's browser, signed in to the dashboard: it sends the Basic sign-in with every request.
SIGNED_IN = {"Authorization": "Basic " + base64.b64encode(f":{TOKEN}".encode()).decode()}
#: What a browser adds to another site's <img src> (or <link rel=prefetch>) pointing at the server.
CROSS_SITE_IMAGE = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}


def test_other_sites_cannot_probe_the_dashboard_through_the_administrators_browser(app):
    """An <img> on another site loads when a page key is stored (200) and fails when not (404): with the
    administrator's Basic sign-in attached, it would tell which pages are stored."""
    client = app.test_client()
    assert client.post("/api/pages", json=page_dict("https://news.example/a/1")).status_code == 201
    probes = ["/sites", "/sites/news.example?page=https://news.example/a/1", "/sites/news.example?page=https://news.example/a/2"]
    for path in probes:
        assert client.get(path, headers={**SIGNED_IN, **CROSS_SITE_IMAGE}).status_code == 403, path
        prefetch = {**CROSS_SITE_IMAGE, "Sec-Fetch-Dest": "empty"}
        assert client.get(path, headers={**SIGNED_IN, **prefetch}).status_code == 403, path
    refused = client.get("/api/admin/aliases", headers={"Authorization": f"Bearer {TOKEN}", **CROSS_SITE_IMAGE})
    assert refused.status_code == 403 and refused.get_json()["error"] == "forbidden"

    shown = "/sites/news.example?page=https://news.example/a/1"
    for fetch_site in ("same-origin", "same-site", "none"):
        response = client.get(shown, headers={**SIGNED_IN, **CROSS_SITE_IMAGE, "Sec-Fetch-Site": fetch_site})
        assert response.status_code == 200, fetch_site
    assert client.get(shown, headers=SIGNED_IN).status_code == 200  # curl, scripts, older browsers
    followed_link = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert client.get(shown, headers={**SIGNED_IN, **followed_link}).status_code == 200
    assert client.get("/api/admin/aliases", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_the_bookmarklets_cross_site_routes_still_answer_other_sites(app):
    client = app.test_client()
    bookmarklet_fetch = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}
    upload = client.post("/api/pages", json=page_dict("https://news.example/a/1"), headers=bookmarklet_fetch)
    assert upload.status_code == 201
    mark = {"url": "https://news.example/a/1", "kind": "not_article", "selector": "p"}
    answers = {
        "rules": client.get("/rules/news.example", headers=bookmarklet_fetch),
        "feedback": client.post("/api/feedback", json=mark, headers=bookmarklet_fetch),
        "script": client.get("/bookmarklet/sitewise.js", headers={**CROSS_SITE_IMAGE, "Sec-Fetch-Dest": "script"}),
    }
    for name, response in answers.items():
        assert response.status_code != 403 and response.headers["Access-Control-Allow-Origin"] == "*", name


def test_answers_to_the_administrator_are_cached_nowhere(app):
    client = app.test_client()
    assert client.post("/api/pages", json=page_dict("https://news.example/a/1")).status_code == 201
    signed_in = "Basic " + base64.b64encode(f":{TOKEN}".encode()).decode()
    for path, authorization in [("/sites/news.example", f"Bearer {TOKEN}"), ("/sites/news.example", signed_in),
                                ("/api/sites/news.example", f"Bearer {TOKEN}"), ("/api/admin/aliases", f"Bearer {TOKEN}")]:
        response = client.get(path, headers={"Authorization": authorization})
        assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store", (path, authorization)
    assert "Cache-Control" not in client.get("/sites/news.example").headers  # the public view: status and rules


def test_bookmarklet_sources_ask_for_no_credentials():
    """Every request the reader script makes goes through one fetch() with credentials "omit"; it reads no
    cookies, no storage and no form values of the page."""
    code = "\n".join(p.read_text() for p in sorted(BOOKMARKLET.glob("*.js")))
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", code, flags=re.S)  # comments may mention anything
    assert len(re.findall(r"\bfetch\(", code)) == 1
    assert re.search(r"credentials:\s*\"omit\"", code)
    for forbidden in (r"XMLHttpRequest", r"sendBeacon", r"document\.cookie", r"localStorage", r"sessionStorage",
                      r"\bFormData\b", r"credentials:\s*\"include\"", r"withCredentials"):
        assert not re.search(forbidden, code), forbidden


# -- in Chromium -----------------------------------------------------------------------------------

SECRETS = ("hunter2-password", "4111 1111 1111 1111", "my private note about the harbor")
ARTICLE = " ".join(["The harbor council voted on the new budget for the river bridge and the school."] * 6)
FORM_PAGE = f"""<!DOCTYPE html><html lang="en"><head><title>Harbor budget vote</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<main><article><h1>Harbor budget vote</h1>{''.join(f'<p>{ARTICLE}</p>' for _ in range(5))}</article>
<form><label>Password <input type="password" name="pw"></label>
<label>Card <input type="text" name="card" autocomplete="cc-number"></label>
<label>Note <textarea name="note"></textarea></label>
<select name="choice"><option>one</option><option>two</option></select></form></main></body></html>"""
HOSTILE = [
    '<script>window.__xss = "script"</script>',
    '<img src=x onerror="window.__xss = \'img\'">',
    '"><svg onload="window.__xss = \'svg\'">',
    "</textarea><iframe srcdoc=\"<script>parent.__xss='iframe'</script>\">",
    "{{ 7*7 }} ${7*7}",
]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.mark.browser
def test_bookmarklet_sends_no_cookies_and_no_form_contents(browser, store, tmp_path):
    app = create_app(settings_for(tmp_path), store)
    with serve_app(app) as loopback, serve_html({"/story.html": ("", FORM_PAGE)}) as site:
        server = loopback.replace("127.0.0.1", "localhost")  # another site than the page's (127.0.0.1)
        context = browser.new_context()
        # Cookies the reader's browser holds for the sitewise server and for the page's own site.
        context.add_cookies([
            # SameSite=None: the kind a browser would send along with cross-site requests that ask for it.
            {"name": "server_session", "value": "SERVER-COOKIE", "domain": "localhost", "path": "/",
             "sameSite": "None", "secure": True},
            {"name": "server_lax", "value": "SERVER-LAX", "url": server, "sameSite": "Lax"},
            {"name": "site_session", "value": "SITE-COOKIE", "url": site},
        ])
        assert {c["name"] for c in context.cookies()} == {"server_session", "server_lax", "site_session"}
        tab = context.new_page()
        tab.route("**/*", loopback_only)
        sent = []
        tab.on("request", lambda request: sent.append(request) if request.url.startswith(server) else None)
        tab.goto(site + "/story.html")
        tab.fill("input[name=pw]", SECRETS[0])
        tab.fill("input[name=card]", SECRETS[1])
        tab.fill("textarea[name=note]", SECRETS[2])
        tab.select_option("select[name=choice]", "two")
        state = click_bookmarklet(tab, server)
        seen = [(r.method, r.url, r.all_headers(), r.post_data_buffer or b"") for r in sent]
        context.close()

    assert state.get("method"), state
    assert seen, "the bookmarklet made no request to the server"
    print(f"{len(seen)} requests to the server: " + ", ".join(f"{method} {url.split('/', 3)[3]}" for method, url, _, _ in seen))
    for method, url, headers, body in seen:
        assert "cookie" not in headers, (method, url, headers["cookie"])
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        for secret in SECRETS + ("SERVER-COOKIE", "SITE-COOKIE"):
            assert secret.encode() not in body, (url, secret)
    stored = json.dumps([page.to_dict() for site_name in store.sites() for page in store.pages(site_name)])
    assert "Harbor budget vote" in stored  # the page itself was uploaded ...
    assert not any(secret in stored for secret in SECRETS)  # ... without what the reader typed


@pytest.mark.browser
def test_dashboard_renders_hostile_uploads_as_text(browser, store, tmp_path):
    client = create_app(settings_for(tmp_path), store).test_client()
    data = page_dict("https://evil.example/a/1", blocks=len(HOSTILE), titles=HOSTILE[:2], descriptions=HOSTILE[2:3],
                     canonical_url="javascript://evil.example/%0awindow.__xss='href'")
    for block, text in zip(data["blocks"], HOSTILE):
        block["text"] = text
        block["selector"] = "body > " + text.replace(" ", "")
    assert client.post("/api/pages", json=data).status_code == 201
    feedback = {"url": "https://evil.example/a/1", "kind": "not_article", "selector": HOSTILE[1], "text": HOSTILE[0]}
    assert client.post("/api/feedback", json=feedback).status_code == 201

    app = create_app(settings_for(tmp_path), store)
    with serve_app(app) as server:
        # The administrator's view: page text and marks are shown to the admin token only.
        tab = browser.new_page(extra_http_headers={"Authorization": "Bearer s3cret"})
        tab.route("**/*", loopback_only)
        dialogs = []
        tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        # (The javascript: canonical URL is not believed: the page is stored under its URL.)
        for path in ("/", "/sites", "/sites/evil.example", "/sites/evil.example?page=" + quote(data["url"], safe="")):
            response = tab.goto(server + path)
            assert response.status == 200, path
            # No payload became markup, and none ran (the page's CSP would block inline script anyway:
            # the DOM check is what proves the escaping).
            assert tab.evaluate("() => window.__xss === undefined"), path
            planted = "[onerror], [onload], iframe, svg:not(.wireframe), script:not([src])"  # the preview is our svg
            assert tab.evaluate(f"() => document.querySelectorAll('{planted}').length") == 0, path
            assert not tab.evaluate(
                "() => [...document.querySelectorAll('a[href]')].some(a => a.protocol === 'javascript:' && !a.matches('.bookmarklet'))"
            ), path
            if path.startswith("/sites/"):
                assert "window.__xss" in tab.inner_text("body"), path  # shown, as text
        tab.close()
    assert dialogs == []
