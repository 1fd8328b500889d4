"""``sitewise extract`` over files, stdin and lists of paths: output formats, JSON lines in input order,
a process pool, a progress bar, rules from a file or a server, and clear errors."""
from __future__ import annotations

import http.server
import io
import json
import os
from pathlib import Path

import pytest

from sitewise.cli import main

from bookmarklet_support import running, serve_app, serve_html
from comments_support import COMMENTS, URL, blog_page
from server_support import settings_for

BASE = "http://gazette.test"


@pytest.fixture
def saved(tmp_path, sample_site):
    """Every page of the site saved as a file, in the site's order (the index page has no article)."""
    paths = []
    for number, page in enumerate(sample_site.pages.values()):
        paths.append(tmp_path / f"{number:02d}.html")
        paths[-1].write_text(page.html, encoding="utf-8")
    return paths


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_one_file_in_each_format(saved, sample_site, capsys):
    story = next(i for i, page in enumerate(sample_site.pages.values()) if page.article)
    assert main(["extract", str(saved[story]), "--no-store"]) == 0
    text, err = capsys.readouterr()
    assert "mss (site not learned)" in err
    assert main(["extract", str(saved[story]), "--no-store", "--output", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.split("\n")[0].lstrip("# ") == text.split("\n")[0]  # a heading line is marked as one
    assert main(["extract", str(saved[story]), "--no-store", "--output", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["text"] + "\n" == text and answer["source"] == str(saved[story]) and answer["language"] == "en"


def test_control_characters_of_a_page_never_reach_the_terminal(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_text("<p>Plain text &#27;[2J&#27;]0;pwned&#7; in a sentence about the harbor strike and the workers "
                    "who voted.</p>", encoding="utf-8")
    for output in ("text", "markdown"):
        assert main(["extract", str(page), "--no-store", "--output", output]) == 0
        out, err = capsys.readouterr()
        assert out.replace("\\", "").startswith("Plain text [2J]0;pwned in a sentence")  # (Markdown escapes [ ])
        assert "\x1b" not in out + err and "\x07" not in out


def test_json_lines_stay_utf8_for_a_file_name_that_is_not(tmp_path, capsysbinary):
    """A file name's byte that is no UTF-8 (os.fsdecode keeps 0xFF as U+DCFF) is written as its \\u escape,
    which reads back as the file's name, never as a raw byte in the output."""
    paragraph = "<p>" + "The harbor workers voted to end the strike after long talks. " * 6 + "</p>"
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/n\xffame.html"))
    odd.write_text(paragraph, encoding="utf-8")
    plain = tmp_path / "plain.html"
    plain.write_text(paragraph, encoding="utf-8")
    for args in ([str(odd), str(plain), "--jobs", "1"], [str(odd), "--output", "json"]):
        assert main(["extract", *args, "--no-store"]) == 0
        out = capsysbinary.readouterr().out
        assert b"\xff" not in out and b"\\udcff" in out
        first = json.loads(out.decode("utf-8") if "json" in args else out.decode("utf-8").splitlines()[0])
        assert first["source"] == str(odd) and os.path.exists(first["source"])


def test_include_comments_keeps_an_articles_thread(tmp_path, capsys):
    page = tmp_path / "post.html"
    page.write_text(blog_page(), encoding="utf-8")
    assert main(["extract", str(page), "--url", URL, "--no-store"]) == 0
    assert COMMENTS[0][1] not in capsys.readouterr().out
    assert main(["extract", str(page), "--url", URL, "--no-store", "--include-comments"]) == 0
    out = capsys.readouterr().out
    assert all(text in out for _, text in COMMENTS)


def test_the_fallback_reads_favouring_precision_or_recall_when_asked(tmp_path, monkeypatch, capsys):
    from sitewise.mss.blockmodel import BlockModel

    page = tmp_path / "post.html"
    page.write_text(blog_page(), encoding="utf-8")
    asked = []
    favoring = BlockModel.favoring
    monkeypatch.setattr(BlockModel, "favoring", lambda self, wanted: asked.append(wanted) or favoring(self, wanted))
    for flag in ("--favor-precision", "--favor-recall"):
        assert main(["extract", str(page), "--url", URL, "--no-store", "--jobs", "1", flag]) == 0
    assert asked == ["precision", "recall"]
    with pytest.raises(SystemExit) as refused:  # argparse: not allowed with the other
        main(["extract", str(page), "--no-store", "--favor-precision", "--favor-recall"])
    assert refused.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_stdin(sample_site, monkeypatch, capsys):
    page = sample_site.pages[sample_site.article_paths[0]]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(page.html.encode("utf-8"))))
    assert main(["extract", "-", "--url", BASE + sample_site.article_paths[0], "--no-store", "--output", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["source"] == "-" and answer["site"] == "gazette.test" and answer["title"] == page.title


def test_stdin_without_url_says_it_has_no_site(tmp_path, monkeypatch, capsys):
    # no site to name, nor to look up rules for: said so, not "site None, version None"
    page = f"<html><body><article><p>{'The harbor workers voted for a strike after the long talks. ' * 4}</p></article></body></html>"
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps({"site": "gazette.test", "templates": [
        {"name": "story", "match": ["article"], "include": ["article"], "words": [1, 1000]}]}))
    for rules, how in (([], "mss (no --url, so no site's rules were looked up)"),
                       (["--rules", str(rules_file)], "rules (no --url, so no site, template story)")):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(page.encode("utf-8"))))
        assert main(["extract", "-", *rules]) == 0
        err = capsys.readouterr().err
        assert f"sitewise extract: {how}; 44 words" in err and "None" not in err


def test_several_inputs_give_json_lines_in_order_from_a_pool(saved, tmp_path, capsys):
    empty = tmp_path / "menu-only.html"
    empty.write_text("<html><body><nav><a href='/'>Home</a></nav></body></html>")
    saved = [*saved, empty]
    listed = tmp_path / "list.txt"
    listed.write_text("# the rest of the site\n" + "\n".join(str(p) for p in saved[2:]) + "\n\n")
    assert main(["extract", str(saved[0]), str(saved[1]), "--from-list", str(listed), "--jobs", "2", "--progress"]) == 1
    out, err = capsys.readouterr()
    answers = lines(out)
    assert [a["source"] for a in answers] == [str(p) for p in saved]
    assert set(answers[0]) == {"source", "url", "method", "template", "fallback_reason", "text"}
    assert "100%" in err and f"{len(saved)}/{len(saved)}" in err  # the progress bar, asked for
    assert "1 of" in err  # the menu-only page: no article, so exit 1
    assert main(["extract", *map(str, saved), "--jobs", "1"]) == 1
    assert lines(capsys.readouterr().out) == answers  # the pool changes nothing but the time


def test_out_dir_writes_each_article_to_a_file_of_its_own(saved, tmp_path, capsys):
    empty = tmp_path / "menu-only.html"
    empty.write_text("<html><body><nav><a href='/'>Home</a></nav></body></html>")
    twin = tmp_path / "twin" / saved[1].name  # the same file name in another folder: a file of its own
    twin.parent.mkdir()
    twin.write_bytes(saved[1].read_bytes())
    inputs = [*map(str, saved[:3]), str(twin), str(empty)]
    folder = tmp_path / "out" / "markdown"  # made, with its parent
    assert main(["extract", *inputs, "--no-store", "--output", "markdown", "--out-dir", str(folder), "--jobs", "1"]) == 1
    answers = lines(capsys.readouterr().out)
    assert [a["source"] for a in answers] == inputs
    assert answers[-1]["file"] is None and answers[-1]["words"] == 0  # no article, no file
    written = [Path(a["file"]) for a in answers if a["file"]]
    assert len(set(written)) == len(written) == sum(1 for a in answers if a["words"]) >= 3
    assert set(folder.iterdir()) == set(written)  # nothing else: no partial file left
    for answer, path in zip([a for a in answers if a["file"]], written):
        assert path.suffix == ".md" and path.name.startswith(Path(answer["source"]).stem + "-")
        assert main(["extract", answer["source"], "--no-store", "--output", "markdown"]) == 0
        assert path.read_text(encoding="utf-8") == capsys.readouterr().out  # what stdout would have shown
    # one input writes its file too; again, the same name is replaced
    assert main(["extract", inputs[0], "--no-store", "--output", "json", "--out-dir", str(folder)]) == 0
    (answer,) = lines(capsys.readouterr().out)
    assert json.loads(Path(answer["file"]).read_text(encoding="utf-8"))["source"] == inputs[0]
    assert main(["extract", inputs[0], "--no-store", "--output", "json", "--out-dir", str(folder)]) == 0
    assert lines(capsys.readouterr().out) == [answer]


def test_out_dir_that_is_a_file_or_cannot_be_written(saved, tmp_path, monkeypatch, capsys):
    assert main(["extract", str(saved[1]), "--no-store", "--out-dir", str(saved[0])]) == 2
    assert f"--out-dir {saved[0]} is a file; give a folder" in capsys.readouterr().err

    def disk_full(path, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", disk_full)  # (as a write would fail: after the temporary file was begun)
    folder = tmp_path / "full"
    assert main(["extract", str(saved[1]), "--no-store", "--out-dir", str(folder)]) == 1
    (answer,) = lines(capsys.readouterr().out)
    assert answer["source"] == str(saved[1]) and "No space left on device" in answer["error"]
    assert list(folder.iterdir()) == []


def test_rules_from_a_file_apply_to_saved_pages(saved, sample_rules, tmp_path, capsys):
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps(sample_rules))
    assert main(["extract", *map(str, saved[:3]), "--rules", str(rules_file), "--output", "markdown", "--jobs", "2"]) in (0, 1)
    answers = lines(capsys.readouterr().out)
    assert {a["method"] for a in answers if a["markdown"]} == {"rules"}
    assert all(a["markdown"].startswith("# ") for a in answers if a["markdown"])


def test_rules_from_a_server(saved, sample_site, sample_rules, tmp_path, store, capsys):
    store.put_rules("gazette.test", sample_rules)
    story = next(i for i, page in enumerate(sample_site.pages.values()) if page.article)
    url = BASE + list(sample_site.pages)[story]
    from sitewise.server import create_app

    with serve_app(create_app(settings_for(tmp_path), store)) as server:
        assert main(["extract", str(saved[story]), "--url", url, "--server", server]) == 0
    assert "rules (site gazette.test, version 1" in capsys.readouterr().err


def test_a_server_url_that_serves_no_rules_is_an_error_not_a_site_not_learned(saved, capsys):
    with serve_html({}) as server:
        assert main(["extract", str(saved[0]), "--url", "http://x.test/a", "--server", server + "/typo"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "HTTP 404 (not a sitewise server's answer" in err


def test_a_page_that_cannot_be_read_is_a_line_of_its_own(saved, tmp_path, capsys):
    binary = tmp_path / "image.html"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 40)
    assert main(["extract", str(saved[1]), str(binary), "--no-store"]) == 1
    answers = lines(capsys.readouterr().out)
    assert answers[1] == {"source": str(binary), "error": "the page is binary data, not HTML"}
    assert answers[0]["text"]


@pytest.mark.browser
def test_a_url_that_cannot_be_loaded_is_a_line_of_its_own(saved, capsys):
    unloadable = "http://127.0.0.1:1/story"  # (a port browsers refuse at once)
    assert main(["extract", str(saved[1]), unloadable, "--no-store"]) == 1
    answers = lines(capsys.readouterr().out)
    assert answers[0]["text"] and answers[1] == {"source": unloadable, "error": "net::ERR_UNSAFE_PORT at " + unloadable}
    assert main(["extract", unloadable, "--no-store"]) == 1
    assert capsys.readouterr() == ("", f"sitewise extract: error: {unloadable}: net::ERR_UNSAFE_PORT at {unloadable}\n")


@pytest.mark.browser
def test_a_page_that_never_finishes_rendering_times_out_on_its_own_line(saved, tmp_path, capsys):
    looping = tmp_path / "loops.html"
    looping.write_text("<p>Never collected</p><script>while (true) {}</script>")
    assert main(["extract", str(looping), str(saved[1]), "--render", "--timeout", "2", "--no-store"]) == 1
    answers = lines(capsys.readouterr().out)
    assert answers[0] == {"source": str(looping), "error": "timed out after 2s"} and answers[1]["text"]


@pytest.mark.parametrize(
    "content, message",
    [(b"", "the page is empty"), (b"\x7fELF\x02\x01\x01" + b"\x00" * 64, "the page is binary data, not HTML")],
    ids=["empty", "binary"],
)
def test_one_input_that_is_no_page_failed_exit_1(content, message, tmp_path, monkeypatch, capsys):
    """Read, but no page (empty stdin, a program): the input failed (1), not the arguments (2)."""
    program = tmp_path / "program"
    program.write_bytes(content)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(content)))
    for source in ("-", str(program)):
        assert main(["extract", source, "--no-store"]) == 1
        assert capsys.readouterr() == ("", f"sitewise extract: error: {source}: {message}\n")


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "at least one SOURCE"),
        (["{a}", "{b}", "--url", "http://x.test/"], "--url"),
        (["{a}", "/no/such/page.html"], "no such file"),
        (["{a}", "{folder}"], "{folder} is a folder: give its files ({folder}/*.html)"),
        (["file://elsewhere.test{a}"], "is a file on another machine (elsewhere.test)"),
        (["{a}", "--jobs", "0"], "--jobs"),
        (["{a}", "http:///story"], "url: no host in 'http:///story'"),  # (refused before Chromium starts)
        (["{a}", "--rules", "/no/rules.json"], "cannot read rules file"),
        (["{a}", "--url", "http://x.test/a", "--server", "http://127.0.0.1:1"], "127.0.0.1:1"),
    ],
)
def test_bad_arguments_fail_before_any_output(saved, args, message, capsys):
    args = [a.format(a=saved[0], b=saved[1], folder=saved[0].parent) for a in args]
    assert main(["extract", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and message.format(folder=saved[0].parent) in err


def test_a_saved_file_named_by_its_file_url(tmp_path, capsys):
    page = tmp_path / "harbor strike.html"
    page.write_text(f"<p>{'The harbor workers voted for a strike after the long talks with the port. ' * 3}</p>")
    for url in (page.as_uri(), f"file://localhost{page.as_uri()[len('file://'):]}"):
        assert main(["extract", url, "--no-store", "--output", "json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert answer["url"] == page.as_uri() and answer["text"].startswith("The harbor workers voted")


@pytest.mark.browser
def test_a_url_that_redirects_to_another_site_gets_that_sites_rules(store, monkeypatch, capsys):
    """The rules are the page's site's, where its address ends up (a short link's site is not the story's):
    as sitewise.extract(html, url=where it ended up, rules=store) chooses them."""
    story = f"<html><body><article><p>{'The harbor workers voted for a strike after the long talks. ' * 4}</p></article></body></html>"

    class Redirects(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            if self.path == "/short":  # from the site 127.0.0.1 to the site localhost
                self.send_response(302)
                self.send_header("Location", f"http://localhost:{self.server.server_address[1]}/story")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = story.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    store.put_rules("127.0.0.1", {"site": "127.0.0.1", "templates": [
        {"name": "any", "match": [], "include": ["article"], "words": [1, 1000]}]})
    monkeypatch.setattr("sitewise.store.open_store", lambda *args, **kwargs: store)
    with running(http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirects)) as base:
        assert main(["extract", f"{base}/short", "--output", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["url"].startswith("http://localhost:") and answer["site"] == "localhost"
    assert (answer["method"], answer["fallback_reason"]) == ("mss", "site not learned")
