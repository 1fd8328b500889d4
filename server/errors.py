"""JSON errors for the API: one shape everywhere under ``/api`` (and ``/rules``), never an HTML page.

Every error body is ``{"error": CODE, "message": TEXT}`` plus ``field`` and ``reason`` when one input
field is to blame, so a client can show the reader (or a developer) exactly what was wrong.
"""
from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

#: Paths whose errors are JSON (the HTML pages keep Flask's HTML errors).
JSON_PREFIXES = ("/api/", "/rules/", "/healthz")
#: Redis restarts (append-only file reload) take seconds; tell clients to come back after this long.
STORE_RETRY_AFTER_S = 5
#: Redis's refusal of a write at its maxmemory. Inside a Lua script it comes back wrapped in the script's
#: error (a ResponseError), not as redis-py's OutOfMemoryError.
REDIS_OOM = "OOM command not allowed"


class ApiError(Exception):
    """An error the client caused (or must know about), answered as JSON with ``status``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        reason: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
        self.headers = headers or {}
        self.extra = extra

    @classmethod
    def bad_field(cls, field: str, reason: str, code: str = "invalid_input") -> "ApiError":
        return cls(400, code, f"{field}: {reason}", field=field, reason=reason)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.field is not None:
            body["field"] = self.field
        if self.reason is not None:
            body["reason"] = self.reason
        body.update(self.extra)
        return body


def json_error(error: ApiError) -> Response:
    response = jsonify(error.body())
    response.status_code = error.status
    response.headers.update(error.headers)
    response.headers["Cache-Control"] = "no-store"
    return response


def _wants_json() -> bool:
    return request.path.startswith(JSON_PREFIXES)


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(ApiError, json_error)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response | HTTPException:
        if not _wants_json():
            return exc
        code = (exc.name or "error").lower().replace(" ", "_")
        response = json_error(ApiError(exc.code or 500, code, exc.description or exc.name))
        if exc.code == 405 and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response

    @app.errorhandler(redis.exceptions.ConnectionError)
    @app.errorhandler(redis.exceptions.TimeoutError)
    def store_unavailable(exc: Exception) -> Response | tuple[str, int, dict[str, str]]:
        log.error("store unavailable on %s %s: %s", request.method, request.path, exc)
        headers = {"Retry-After": str(STORE_RETRY_AFTER_S)}
        if not _wants_json():
            return "The store is unavailable; retry shortly.", 503, headers
        return json_error(ApiError(503, "store_unavailable", "the store is unavailable; retry shortly", headers=headers))

    @app.errorhandler(redis.exceptions.OutOfMemoryError)
    def store_full(exc: Exception) -> Response | tuple[str, int]:
        # Redis at its maxmemory with noeviction refuses writes rather than dropping stored data.
        log.critical("store full (Redis maxmemory) on %s %s: %s", request.method, request.path, exc)
        if not _wants_json():
            return "The store is full.", 507
        return json_error(ApiError(507, "store_full", "the store is full; the operator has been told"))

    @app.errorhandler(redis.exceptions.ResponseError)
    def store_error(exc: Exception) -> Response | tuple[str, int]:
        """A script's write refused at maxmemory is the store full; any other Redis error a failure."""
        return store_full(exc) if REDIS_OOM in str(exc) else unexpected_error(exc)

    @app.errorhandler(Exception)
    def unexpected_error(exc: Exception) -> Response | tuple[str, int]:
        log.exception("unhandled error on %s %s", request.method, request.path)
        if not _wants_json():
            return "Internal server error", 500
        return json_error(ApiError(500, "internal_error", "the server failed; the error is logged"))
