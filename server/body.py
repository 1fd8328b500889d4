"""Reading request bodies safely: size caps before and after gzip decoding, strict JSON.

A client may gzip its upload (``Content-Encoding: gzip``, or a body that starts with gzip's magic bytes):
pages compress ten-fold. The decoded size is capped as it is inflated, so a small "zip bomb" costs
no more memory than the cap.
"""
from __future__ import annotations

import json
import zlib
from typing import Any

from flask import Request

from .errors import ApiError

GZIP_MAGIC = b"\x1f\x8b"
#: zlib's window-bits value that accepts a gzip header and trailer.
_GZIP_WBITS = 16 + zlib.MAX_WBITS
#: Inflate in slices this big, so the cap is checked before more memory is taken.
_INFLATE_CHUNK = 1 << 20


def too_large(limit: int) -> ApiError:
    return ApiError(413, "too_large", f"the body is larger than {limit} bytes", limit=limit)


def read_body(request: Request, limit: int) -> bytes:
    """The request body, gunzipped when it is gzip; 413 beyond ``limit`` bytes (raw or decoded)."""
    length = request.content_length
    if length is not None and length > limit:
        raise too_large(limit)
    raw = request.stream.read(limit + 1)
    if len(raw) > limit:
        raise too_large(limit)
    encoding = (request.headers.get("Content-Encoding") or "").strip().lower()
    if encoding in ("gzip", "x-gzip") or (not encoding and raw.startswith(GZIP_MAGIC)):
        return gunzip(raw, limit)
    if encoding not in ("", "identity"):
        raise ApiError(415, "unsupported_encoding", f"Content-Encoding {encoding!r} is not supported; use gzip")
    return raw


def gunzip(data: bytes, limit: int) -> bytes:
    """Inflate a gzip body, refusing (413) as soon as the output passes ``limit`` bytes."""
    inflater = zlib.decompressobj(_GZIP_WBITS)
    parts: list[bytes] = []
    size = 0
    pending = data
    try:
        while pending:
            chunk = inflater.decompress(pending, _INFLATE_CHUNK)
            size += len(chunk)
            if size > limit:
                raise too_large(limit)
            parts.append(chunk)
            pending = inflater.unconsumed_tail
        tail = inflater.flush()
    except zlib.error as exc:
        raise ApiError(400, "bad_gzip", f"the gzip body cannot be decoded: {exc}") from None
    if not inflater.eof:
        raise ApiError(400, "bad_gzip", "the gzip body is truncated")
    size += len(tail)
    if size > limit:
        raise too_large(limit)
    parts.append(tail)
    return b"".join(parts)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json(data: bytes) -> Any:
    """Strict JSON from UTF-8 bytes: 400 for bad UTF-8, bad syntax, NaN/Infinity or absurd nesting."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, "bad_json", f"the body is not UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise ApiError(400, "bad_json", "the body is empty; send a JSON object")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ApiError(400, "bad_json", f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise ApiError(400, "bad_json", f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, "bad_json", "the body nests too deeply") from None


def read_json(request: Request, limit: int) -> Any:
    """The request's JSON body (gzip allowed), size-capped; see :func:`read_body` and :func:`parse_json`."""
    return parse_json(read_body(request, limit))
