"""gunicorn settings for the sitewise web server, shared by ``sitewise up`` and the Docker image:

    gunicorn -c python:sitewise.gunicorn_config --bind 0.0.0.0:8000 'sitewise.server:create_app()'

Command-line options override these; ``SITEWISE_WEB_PROCESSES`` and ``SITEWISE_WEB_CONNECTIONS`` set the pool.
"""
from __future__ import annotations

import os
from pathlib import Path

from gunicorn.glogging import Logger

from sitewise.config import (
    LOG_LEVEL_VARIABLE, Settings, configure_logging, escaped_args, integer_from_env, log_level_from_env,
)

#: The app's settings are checked before gunicorn starts: a bad value is then one line naming its variable
#: (gunicorn's "Error: ..."), not a traceback from every web process that fails to boot.
Settings.from_env()

#: gevent, not threads: a connection costs a greenlet, not one of a few threads, so clients that send
#: their request slowly (a bad link, or an attack: 64 connections dribbling headers took every one of the
#: 16 threads of the gthread worker, and health checks went unanswered) cannot starve the others. Rule
#: reads and uploads mostly wait on Redis, which gevent overlaps as threads did, and keep-alive stays.
worker_class = "gevent"
#: One process per core (the reference machine has 2); more only adds memory.
workers = integer_from_env("SITEWISE_WEB_PROCESSES", 2)
#: Open connections per process: what slow clients must exhaust to starve a process (file descriptors
#: stay under the usual limit of 1,024).
worker_connections = integer_from_env("SITEWISE_WEB_CONNECTIONS", 900)
#: Seconds a request may take before its process is recycled (an 8 MB upload on a slow link fits).
timeout = 60
#: Seconds requests in flight get to finish on SIGTERM.
graceful_timeout = 30
#: Keep-alive between requests of one client (the bookmarklet makes 2-3 in a row). The gevent worker also
#: gives each request's line and headers this long to arrive, so a client dribbling headers is cut off.
keepalive = 5
#: Errors and lifecycle messages to stderr; the app logs each request itself (``server`` logger).
errorlog = "-"
#: gunicorn's own access log, when asked for (``sitewise up --access-log``): time, method, path, status,
#: bytes and milliseconds. Never the client's address (the app names callers by a salted hash), the query
#: string, the referer (the page a reader is reading) or the user agent.
access_log_format = '%(t)s "%(m)s %(U)s" %(s)s %(b)s %(M)sms'


class AccessLogger(Logger):
    """gunicorn's logger with the access log's atoms made :func:`~sitewise.config.escaped_for_log`. The path
    is the client's and decoded (``%0A`` a newline, ``%1B`` ESC), and gunicorn formats its access line itself,
    past any formatter: ``GET /x%0A<fake line>`` wrote a forged line of its own to the operator's log."""

    def atoms(self, resp, req, environ, request_time) -> dict:
        return escaped_args(super().atoms(resp, req, environ, request_time))


#: gunicorn's own log, its access lines escaped (:class:`AccessLogger`).
logger_class = AccessLogger
loglevel = os.environ.get(LOG_LEVEL_VARIABLE, "info")
#: Recent gunicorn opens a control socket at one fixed path per user, so two servers on one machine (tests,
#: benchmarks, several deployments) would fight over it; sitewise does not use it.
control_socket_disable = True


def on_starting(server) -> None:
    """gunicorn's hook, in the master before it forks the web processes (which inherit this): the app's log
    goes to stderr at ``SITEWISE_LOG_LEVEL``. gunicorn sets up only its own loggers; without this the app
    logged nothing below WARNING (no write was logged) and its warnings without time, level or name."""
    configure_logging(log_level_from_env())


def when_ready(server) -> None:
    """gunicorn's hook, called once the master has bound its sockets. Under ``sitewise up``, which names a
    file in ``SITEWISE_UP_BOUND``, the master writes its pid there: only then does ``sitewise up`` take
    ``/healthz`` answers for its own web server's (another program on the port would answer too)."""
    path = os.environ.get("SITEWISE_UP_BOUND")
    if path:
        Path(path).write_text(str(os.getpid()))
