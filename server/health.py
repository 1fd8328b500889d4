"""``GET /healthz``: is the store answering, and how long is the learning queue."""
from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import redis
from flask import Blueprint, Response, jsonify

from sitewise import __version__

from .errors import STORE_RETRY_AFTER_S
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
        # The error text names hosts, sockets and paths: it goes to the log, the answer says only what failed.
        log.error("health check failed: %s", exc)
        response = jsonify({"ok": False, "version": __version__, "redis": {"ok": False, "error": "unavailable"}})
        response.headers["Retry-After"] = str(STORE_RETRY_AFTER_S)
        return response, 503
    return jsonify({
        "ok": True,
        "version": __version__,
        "redis": {"ok": True, "ping_ms": redis_ms},
        "queue": {"learn": queued},
        **supervised_parts(),
    }), 200


def supervised_parts() -> dict[str, list[str]]:
    """Under ``sitewise up``: the parts its supervisor reports crash-looping (``{"degraded": [...]}``), read
    from the status file it names in ``SITEWISE_UP_STATUS``; nothing otherwise."""
    path = os.environ.get("SITEWISE_UP_STATUS")
    if not path:
        return {}
    try:
        looping = json.loads(Path(path).read_text())["crash_looping"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {"degraded": [str(name) for name in looping]} if looping else {}
