"""``GET /healthz``: is the store answering, and how long is the learning queue."""
from __future__ import annotations

import logging
import time

import redis
from flask import Blueprint, Response, jsonify

from sitewise import __version__

from .services import services

log = logging.getLogger(__name__)
blueprint = Blueprint("health", __name__)


@blueprint.get("/healthz")
def healthz() -> tuple[Response, int]:
    """200 when Redis answers a PING (with its latency and the queue length), else 503."""
    svc = services()
    started = time.perf_counter()
    try:
        svc.store.redis.ping()
        redis_ms = round((time.perf_counter() - started) * 1000, 2)
        queued = svc.learning.queue_length()
    except redis.exceptions.RedisError as exc:
        log.error("health check failed: %s", exc)
        return jsonify({"ok": False, "version": __version__, "redis": {"ok": False, "error": str(exc)}}), 503
    return jsonify({
        "ok": True,
        "version": __version__,
        "redis": {"ok": True, "ping_ms": redis_ms},
        "queue": {"learn": queued},
    }), 200
