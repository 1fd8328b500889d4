"""``sitewise collect`` end to end: files, folders and manifests rendered in real Chromium, written to
files, uploaded to an HTTP server, or stored in the embedded Redis."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from bookmarklet_support import serve_app
from flask import Flask, request
from sitewise.server import create_app
from server_support import settings_for

from sitewise.cli import main
from sitewise.commands.collect import file_name
from sitewise.page import Page
from sitewise.store import open_store

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures" / "collect"


def run_collect(*args: str) -> int:
    return main(["collect", "--no-progress", "--workers", "2", *args])


def test_files_and_folders_to_json_files(tmp_path, capsys):
    folder = tmp_path / "site"
    (folder / "news").mkdir(parents=True)
    shutil.copy(FIXTURES / "nested.html", folder / "news" / "nested.html")
    shutil.copy(FIXTURES / "styles.html", folder / "styles.html")
    out = tmp_path / "out"
    assert run_collect(str(FIXTURES / "inline.html"), str(folder), "--out", str(out)) == 0
    assert sorted(p.name for p in out.iterdir()) == ["inline.json", "news_nested.json", "styles.json"]
    page = Page.from_dict(json.loads((out / "inline.json").read_text()))
    assert page.url == (FIXTURES / "inline.html").resolve().as_uri() and page.site == "local"
    assert page.blocks[0].text.startswith("The quick brown fox")
    assert "collected 3 of 3 pages" in capsys.readouterr().out


def test_pages_whose_names_clash_get_files_of_their_own(tmp_path, capsys):
    for folder, text in (("one", "First index"), ("two", "Second index")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "index.html").write_text(f"<p>{text}</p>")
    (tmp_path / "one" / "index.htm").write_text("<p>Short suffix</p>")
    out = tmp_path / "out"
    assert run_collect(str(tmp_path / "one"), str(tmp_path / "two"), "--out", str(out)) == 0
    assert "collected 3 of 3 pages" in capsys.readouterr().out
    written = [Page.from_dict(json.loads(path.read_text())) for path in sorted(out.iterdir())]
    assert sorted(page.blocks[0].text for page in written) == ["First index", "Second index", "Short suffix"]
    assert (out / "index.json").exists()  # the first page keeps its plain name


def test_url_base_gives_local_files_a_site(tmp_path):
    out = tmp_path / "out"
    assert run_collect(str(FIXTURES / "stored.html"), "--url-base", "http://blog.example/", "--out", str(out)) == 0
    page = Page.from_dict(json.loads((out / "stored.json").read_text()))
    assert page.url == "http://blog.example/stored.html" and page.site == "blog.example"
    assert "resolved http://blog.example/other/page.html" in page.text  # served at that URL, offline


def write_manifest(folder: Path) -> Path:
    (folder / "html").mkdir(parents=True)
    shutil.copy(FIXTURES / "inline.html", folder / "html" / "a.html")
    (folder / "html" / "b.html.gz").write_bytes(gzip.compress((FIXTURES / "hang.html").read_bytes()))
    shutil.copy(FIXTURES / "latin1.html", folder / "html" / "c.html")
    lines = [
        {"id": "set/a", "site": "a.example", "url": "https://a.example/post/1", "html": "html/a.html"},
        {"id": "set/b", "site": "b.example", "url": None, "html": "html/b.html.gz"},
        {"id": "set/spider", "site": "c.example", "url": None, "page": "pages/x.json.gz"},
        {"id": "set/c", "site": "c.example", "url": None, "html": "html/c.html", "encoding": "iso-8859-1"},
    ]
    manifest = folder / "manifest.jsonl"
    manifest.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return manifest


def test_manifest_with_a_failing_page(tmp_path, capsys):
    manifest = write_manifest(tmp_path / "set")
    out = tmp_path / "out"
    assert run_collect("--manifest", str(manifest), "--timeout", "4", "--out", str(out)) == 1
    captured = capsys.readouterr()
    assert "FAILED set/b: timed out after 4s" in captured.err
    assert "skipped set/spider: no stored HTML" in captured.err
    assert "collected 2 of 3 pages" in captured.out and "(1 failed)" in captured.out
    assert sorted(p.name for p in out.iterdir()) == ["set_a.json", "set_c.json"]
    first = Page.from_dict(json.loads((out / "set_a.json").read_text()))
    assert first.url == "https://a.example/post/1"
    latin = Page.from_dict(json.loads((out / "set_c.json").read_text()))
    assert latin.url == "http://c.example/_sitewise/set%2Fc" and latin.text == "Café crème brûlée"


def test_limit(tmp_path):
    manifest = write_manifest(tmp_path / "set")
    out = tmp_path / "out"
    assert run_collect("--manifest", str(manifest), "--limit", "1", "--out", str(out)) == 0
    assert [p.name for p in out.iterdir()] == ["set_a.json"]


def test_upload_to_the_sitewise_server(store, tmp_path):
    app = create_app(settings_for(tmp_path), store)
    with serve_app(app) as base:
        args = (str(FIXTURES / "nested.html"), str(FIXTURES / "metadata.html"), "--url-base", "http://n.example")
        assert run_collect(*args, "--server", base + "/") == 0
        assert run_collect(*args, "--server", base) == 0  # a re-upload replaces
    assert store.page_count("n.example") == 2
    page = store.get_page("n.example", "http://n.example/nested.html")
    assert page is not None and page.blocks[0].text == "Intro text outro text"


def test_server_refusals_are_reported_per_page(store, tmp_path, capsys):
    app = create_app(settings_for(tmp_path), store)
    with serve_app(app) as base:
        assert run_collect(str(FIXTURES / "nested.html"), "--server", base + "/nowhere") == 1
    err = capsys.readouterr().err
    assert "FAILED" in err and "server answered 404" in err


def test_uploads_wait_when_the_server_asks(monkeypatch):
    """A 429 with Retry-After is waited out and retried; the gzip JSON body is what arrives."""
    received: list[dict] = []
    app = Flask(__name__)

    @app.post("/api/pages")
    def pages():
        if not received:
            received.append({})
            return {"error": "rate_limited", "message": "slow down"}, 429, {"Retry-After": "0"}
        assert request.headers["Content-Encoding"] == "gzip"
        received.append(json.loads(gzip.decompress(request.get_data())))
        return {"created": True}, 201

    with serve_app(app) as base:
        assert run_collect(str(FIXTURES / "inline.html"), "--url-base", "http://r.example", "--server", base) == 0
    assert Page.from_dict(received[1]).url == "http://r.example/inline.html"


def test_default_output_is_the_store(redis_server, redis_client, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    base = "http://store.example/"
    assert run_collect(str(FIXTURES / "inline.html"), str(FIXTURES / "metadata.html"), "--url-base", base) == 0
    assert run_collect(str(FIXTURES / "inline.html"), "--url-base", base) == 0  # a re-upload replaces
    store = open_store()
    assert store.page_count("store.example") == 2
    canonical = store.get_page("store.example", "http://store.example/articles/42?ref=home")
    assert canonical is not None and canonical.titles[0] == "Document title"


def test_nothing_to_collect_is_an_error(capsys):
    assert main(["collect"]) == 2
    assert "nothing to collect" in capsys.readouterr().err


def test_file_names():
    assert file_name("dragnet/R237") == "dragnet_R237"
    assert file_name("news/page") == "news_page"
    a, b = file_name("https://a.example/x?y=1"), file_name("https://a.example/x?y=2")
    assert a.startswith("a.example_x_y_1-") and a != b
