"""Reading evaluation sets in the manifest format of ``../shared/data/README.md``.

A manifest is JSONL, one page per line, paths relative to the manifest's folder; files may be gzip
compressed. Nothing here copies data anywhere: benchmarks read it in place.
"""
from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .charsets import UTF8_BOM, UTF16_BOMS, codec_declared_in, codec_for_label, decode
from .page import site_of_host


#: Ways of grouping a manifest's pages into sites besides a manifest field's name (:attr:`Entry.group`).
GROUPINGS = ("registrable", "host")


class ManifestError(ValueError):
    """A manifest line or a file it names is missing or malformed."""


@dataclass
class Entry:
    """One manifest line, with lazy access to the files it names."""

    id: str
    site: str | None
    url: str | None
    split: str | None
    root: Path
    raw: dict[str, Any] = field(repr=False)
    #: What one site is for per-site learners (:data:`GROUPINGS`, or the name of a manifest field).
    grouping: str = "host"

    @property
    def group(self) -> str | None:
        """The site this page is learned and scored with, by :attr:`grouping`: its host (the manifest's
        ``site``, as the per-site split was made), the host's registrable domain (what the server calls a
        site: news.bbc.co.uk and www.bbc.co.uk are one), or a manifest field's value; prefixed with the
        ``collection`` for spider."""
        if self.grouping == "host":
            key = self.site
        elif self.grouping == "registrable":
            key = site_of_host(self.site) if self.site else None
        else:
            value = self.raw.get(self.grouping)
            key = None if value is None else str(value)
        if key and self.raw.get("collection"):
            return f"{self.raw['collection']}:{key}"
        return key

    @property
    def mismatch(self) -> bool:
        """The page does not contain its truth (error pages): left out of headline scores."""
        return bool(self.raw.get("truth_mismatch"))

    @property
    def has_truth(self) -> bool:
        return self.raw.get("truth") is not None

    def html(self) -> str | None:
        """The raw HTML decoded as a browser would (:func:`decode_html`), or None for spider pages."""
        path = self.raw.get("html")
        if not path:
            return None
        return decode_html(read_bytes(self.root / path), self.raw.get("encoding"))

    def html_bytes(self) -> bytes | None:
        path = self.raw.get("html")
        return read_bytes(self.root / path) if path else None

    def spider_page(self) -> dict[str, Any] | None:
        """The pre-rendered spider JSON (spider set only)."""
        path = self.raw.get("page")
        return json.loads(read_bytes(self.root / path)) if path else None

    def truth(self) -> str | None:
        """The truth text, which the manifest format says is UTF-8 (a ManifestError naming the file if not)."""
        path = self.raw.get("truth")
        if not path:
            return None
        try:
            return read_bytes(self.root / path).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ManifestError(f"{self.root / path}: truth is not UTF-8 ({exc})") from None


def read_manifest(path: str | Path, grouping: str = "host") -> list[Entry]:
    """All entries of a manifest file (or of ``DIR/manifest.jsonl`` when given a folder), grouped into
    sites by ``grouping`` (see :attr:`Entry.group`). Ids are unique: one given twice is a ManifestError."""
    path = Path(path)
    if path.is_dir():
        path = path / "manifest.jsonl"
    if not path.is_file():
        raise ManifestError(f"no manifest at {path}")
    return list(_entries(path, grouping))


def _entries(path: Path, grouping: str) -> Iterator[Entry]:
    """The manifest's entries; an id seen before is an error (truths and scores are keyed by id, so a
    second page of one id would be scored against the other's truth)."""
    seen: dict[str, int] = {}
    try:
        # (a BOM, which editors on Windows write, is no part of the first line)
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path}: not UTF-8 ({exc})") from None
    # split at line feeds only: JSON strings may hold U+2028 and other breaks str.splitlines splits at
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            entry = Entry(raw["id"], raw.get("site"), raw.get("url"), raw.get("split"), path.parent, raw, grouping)
        except KeyError as exc:
            raise ManifestError(f"{path}:{number}: no {exc} field") from None
        except (json.JSONDecodeError, TypeError) as exc:
            raise ManifestError(f"{path}:{number}: {exc}") from None
        truth = raw.get("truth")
        if truth is not None and (not isinstance(truth, str) or not truth):
            # (a page with a truth would be scored; one naming no file would silently not be)
            raise ManifestError(f"{path}:{number}: truth must be a file's path or null, not {truth!r}")
        if entry.id in seen:
            raise ManifestError(f"{path}:{number}: id {entry.id!r} is also line {seen[entry.id]}'s")
        seen[entry.id] = number
        yield entry


def read_bytes(path: Path) -> bytes:
    """A file's bytes, transparently gunzipped when it ends in ``.gz`` (a ManifestError naming the file when
    it is not gzip or is cut short)."""
    if not path.is_file():
        raise ManifestError(f"missing file {path}")
    data = path.read_bytes()
    if path.suffix != ".gz":
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise ManifestError(f"{path}: not readable as gzip ({exc})") from None


#: A page malformed in every encoding it may be in keeps its declared one (with replacement characters,
#: as in a browser) while under this share of its non-ASCII bytes are malformed there: a few bad bytes
#: in a Chinese or UTF-8 page, not a Latin-1 page under a UTF-8 label, whose accented letters would all
#: be replacement characters (CleanEval holds such pages) where windows-1252 reads them.
_MALFORMED_SHARE = 0.5
_ASCII_BYTES = bytes(range(0x80))


def decode_html(data: bytes, declared: str | None = None) -> str:
    """Decode page bytes as a browser would: by a BOM, else the page's own ``<meta charset>`` (outside
    comments), else the ``declared`` encoding (a manifest's label), else UTF-8, else windows-1252.
    Labels mean what they mean to browsers (:mod:`sitewise.charsets`: ISO-8859-1 is windows-1252,
    GB2312 is GB18030); one that names no encoding is passed over.

    A declaration the bytes are malformed in gives way to the next one they are well-formed in (archived
    pages keep a stale ``<meta>`` above bytes re-encoded as UTF-8). When there is none, the page is read
    in its first declaration with replacement characters if few of its bytes are malformed there, as
    browsers read it (one bad byte does not make a Chinese page windows-1252), else as windows-1252. A
    page that declares nothing is UTF-8 when it is well-formed UTF-8, else windows-1252 (which never
    fails)."""
    if data.startswith(UTF8_BOM):
        return data[len(UTF8_BOM):].decode("utf-8", errors="replace")
    if data[:2] in UTF16_BOMS:
        return data.decode("utf-16", errors="replace")
    said = [codec for codec in (codec_declared_in(data), codec_for_label(declared)) if codec]
    for codec in (*said, "utf-8"):
        try:
            return decode(data, codec)
        except UnicodeDecodeError:
            continue
    if said:  # all multi-byte: a one-byte encoding never fails
        text = decode(data, said[0], errors="replace")
        if _few_malformed(data, text):
            return text
    return decode(data, "cp1252")


def _few_malformed(data: bytes, text: str) -> bool:
    """Whether under :data:`_MALFORMED_SHARE` of the non-ASCII bytes of ``data`` became replacement
    characters in ``text`` (each stands for one malformed sequence, of one byte or more)."""
    return text.count("\ufffd") < _MALFORMED_SHARE * len(data.translate(None, _ASCII_BYTES))
