"""gunicorn settings for the sitewise web server, shared by ``sitewise up`` and the Docker image:

    gunicorn -c python:sitewise.gunicorn_config --bind 0.0.0.0:8000 'server:create_app()'

Command-line options override these; ``SITEWISE_WEB_PROCESSES`` and ``SITEWISE_WEB_THREADS`` set the pool.
"""
from __future__ import annotations

import os

#: Threads, not the sync worker: rule reads are short and mostly wait on Redis, and a threaded worker keeps
#: HTTP keep-alive connections open (the sync worker closes every connection after one request).
worker_class = "gthread"
#: One process per core (the reference machine has 2); more only adds memory.
workers = int(os.environ.get("SITEWISE_WEB_PROCESSES", "2"))
threads = int(os.environ.get("SITEWISE_WEB_THREADS", "8"))
#: Seconds a request may take before its process is recycled (an 8 MB upload on a slow link fits).
timeout = 60
#: Seconds requests in flight get to finish on SIGTERM.
graceful_timeout = 30
#: Keep-alive between requests of one client (the bookmarklet makes 2-3 in a row).
keepalive = 5
#: Errors and lifecycle messages to stderr; the app logs each request itself (``server`` logger).
errorlog = "-"
loglevel = os.environ.get("SITEWISE_LOG_LEVEL", "info")
#: Recent gunicorn opens a control socket at one fixed path per user, so two servers on one machine (tests,
#: benchmarks, several deployments) would fight over it; sitewise does not use it.
control_socket_disable = True
