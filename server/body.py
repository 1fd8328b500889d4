"""Reading request bodies safely: size caps before and after gzip decoding, strict JSON.

A client may gzip its upload (``Content-Encoding: gzip``, or a body that starts with gzip's magic bytes):
pages compress ten-fold. The decoded size is capped as it is inflated, so a small "zip bomb" costs
no more memory than the cap.
"""
from __future__ import annotations

import json
import math
import re
import zlib
from typing import Any

from flask import Request
from gunicorn.http.errors import ParseException

from .errors import ApiError

GZIP_MAGIC = b"\x1f\x8b"
#: zlib's window-bits value that accepts a gzip header and trailer.
_GZIP_WBITS = 16 + zlib.MAX_WBITS
#: Inflate in slices this big, so the cap is checked before more memory is taken.
_INFLATE_CHUNK = 1 << 20
#: Integers beyond JavaScript's safe range cannot come from a browser, and would overflow floats.
MAX_SAFE_INTEGER = 2**53 - 1
#: A JSON escape of a UTF-16 surrogate: only then can a decoded string hold an unpaired one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def too_large(limit: int) -> ApiError:
    return ApiError(413, "too_large", f"the body is larger than {limit} bytes", limit=limit)


def read_body(request: Request, limit: int) -> bytes:
    """The request body, gunzipped when it is gzip; 413 beyond ``limit`` bytes (raw or decoded), 400 when it
    cannot be read whole (malformed chunked encoding, a body cut short)."""
    length = request.content_length
    if length is not None and length > limit:
        raise too_large(limit)
    try:
        raw = request.stream.read(limit + 1)
    except (ParseException, OSError) as exc:
        # A malformed chunked encoding (gunicorn's InvalidChunkSize, ChunkMissingTerminator: ParseExceptions)
        # or a body cut short (NoMoreData, an IOError) is the client's fault, not a 500.
        raise ApiError(400, "bad_body", f"the request body cannot be read: {type(exc).__name__}") from None
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


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _safe_int(text: str) -> int:
    value = int(text)
    if abs(value) > MAX_SAFE_INTEGER:
        raise ValueError(f"the integer {text[:40]} is out of range (at most 2^53 - 1)")
    return value


def unpaired_surrogate(data: Any, path: str = "") -> str | None:
    """The dotted path of the first string (or key) holding an unpaired UTF-16 surrogate, else None.

    JSON may spell one as an escape (``"\\ud800"``); Python decodes it, but it is no character and
    cannot be stored as UTF-8.
    """
    stack = [(path, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    return where or "(body)"
        elif isinstance(value, dict):
            for key, item in value.items():
                child = f"{where}.{key}" if where else str(key)
                if unpaired_surrogate(key) is not None:
                    return child
                stack.append((child, item))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
    return None


def parse_json(data: bytes) -> Any:
    """Strict JSON from UTF-8 bytes: 400 for bad UTF-8, bad syntax, NaN/Infinity, numbers out of range,
    unpaired surrogates or absurd nesting."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, "bad_json", f"the body is not UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise ApiError(400, "bad_json", "the body is empty; send a JSON object")
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_safe_int)
    except json.JSONDecodeError as exc:
        raise ApiError(400, "bad_json", f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise ApiError(400, "bad_json", f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, "bad_json", "the body nests too deeply") from None
    if _SURROGATE_ESCAPE.search(text):
        field = unpaired_surrogate(data)
        if field is not None:
            raise ApiError.bad_field(field, "holds an unpaired UTF-16 surrogate (not a character)", code="bad_json")
    return data


def read_json(request: Request, limit: int) -> Any:
    """The request's JSON body (gzip allowed), size-capped; see :func:`read_body` and :func:`parse_json`."""
    return parse_json(read_body(request, limit))
