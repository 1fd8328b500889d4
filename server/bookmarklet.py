"""``/bookmarklet/...``: the scripts the bookmarklet runs, served fresh so fixes reach every reader.

The loader (a ``javascript:`` URL the reader keeps as a bookmark) only injects
``/bookmarklet/sitewise.js``; that response bundles ``collect.js`` (the block collector) with the reader
UI, so one request — one CSP check — brings everything. Scripts are revalidated on every use (ETag).
"""
from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from urllib.parse import quote

from flask import Blueprint, Response, request

from sitewise.bookmarklet import source

from .services import services

blueprint = Blueprint("bookmarklet", __name__, url_prefix="/bookmarklet")

#: The loader's stand-in for the server's address (a JS string literal), replaced when the install page renders it.
SERVER_PLACEHOLDER = "__SITEWISE_SERVER__"
#: Characters a javascript: URL keeps unescaped (the rest are %-encoded so the link survives copying).
_URL_SAFE = "!$&'()*+,;=:/?@[]~-._{}\"<>|^`"


@lru_cache(maxsize=None)
def _script(name: str) -> tuple[bytes, str]:
    if name == "sitewise.js":
        text = source("collect.js") + "\n;\n" + source("sitewise.js")
    else:
        text = source(name)
    body = text.encode("utf-8")
    return body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


def _serve(name: str) -> Response:
    body, etag = _script(name)
    headers = {
        "ETag": etag,
        "Cache-Control": "no-cache",  # revalidate every time: a fix is live on the next click
        # Pages that isolate themselves (COEP require-corp) load only resources that opt in.
        "Cross-Origin-Resource-Policy": "cross-origin",
    }
    if etag in request.headers.get("If-None-Match", ""):
        return Response(status=304, headers=headers)
    return Response(body, mimetype="text/javascript", headers=headers)


@blueprint.get("/sitewise.js")
def sitewise_js() -> Response:
    """The reader UI with the collector bundled in."""
    return _serve("sitewise.js")


@blueprint.get("/collect.js")
def collect_js() -> Response:
    """The collector alone (defines ``window.sitewiseCollect``)."""
    return _serve("collect.js")


def public_base_url() -> str:
    """Where readers reach this server, for the install link: ``SITEWISE_PUBLIC_URL`` when configured, else
    the local address the request arrived on. Never the Host header: anyone can send any Host (or poison a
    cache with one), and a bookmarklet built from it would send readers' pages to someone else."""
    configured = services().settings.public_url
    if configured:
        return configured.rstrip("/")
    environ = request.environ
    sock = environ.get("gunicorn.socket")
    address = sock.getsockname() if sock is not None else None
    if isinstance(address, tuple):
        host, port = str(address[0]), int(address[1])
    else:  # another WSGI server, or a unix socket: the address it says it serves on
        host, port = environ.get("SERVER_NAME", "localhost"), int(environ.get("SERVER_PORT") or 80)
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}" + ("" if port == 80 else f":{port}")


def minify_loader(text: str) -> str:
    """The loader source as one short line: comments dropped, runs of whitespace collapsed."""
    text = re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE)
    return re.sub(r"\s+", " ", text).strip()


def bookmarklet_href(server: str) -> str:
    """The ``javascript:`` URL to install, pointing the loader at ``server`` (no trailing slash)."""
    literal = json.dumps(server.rstrip("/"))  # a JS string literal, whatever the Host header held
    code = minify_loader(source("loader.js")).replace(SERVER_PLACEHOLDER, literal)
    return "javascript:" + quote(code, safe=_URL_SAFE)
