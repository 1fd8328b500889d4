"""Health checks for containers (docker-compose ``healthcheck``): exit 0 when healthy, else 1 with the
reason on stderr. No curl or redis-cli needed in the image.

    python -m sitewise.healthcheck web [URL]   # the web server's /healthz answers 200
    python -m sitewise.healthcheck worker      # an RQ worker of this host is registered in REDIS_URL
"""
from __future__ import annotations

import socket
import sys
import urllib.error
import urllib.request

#: A health check must answer well within compose's check timeout.
TIMEOUT_S = 3.0
DEFAULT_HEALTH_URL = "http://127.0.0.1:8000/healthz"


def check_web(url: str = DEFAULT_HEALTH_URL) -> str | None:
    """None when ``url`` answers 200, else why not."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            return None if response.status == 200 else f"{url} answered {response.status}"
    except urllib.error.HTTPError as exc:
        return f"{url} answered {exc.code}: {exc.read(300).decode('utf-8', 'replace')}"
    except (urllib.error.URLError, OSError) as exc:
        return f"{url}: {exc}"


def check_worker(hostname: str | None = None) -> str | None:
    """None when an RQ worker running on ``hostname`` (this host) is registered (its key expires when its
    heartbeat stops), else why not."""
    import redis
    from rq import Worker

    from .config import setting_from_env
    from .redis_conn import display_url

    hostname = hostname or socket.gethostname()
    url = str(setting_from_env("redis_url"))
    if not url:
        return "REDIS_URL is not set"
    client = redis.Redis.from_url(url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S)
    try:
        workers = [w for w in Worker.all(connection=client) if w.hostname == hostname]
    except redis.RedisError as exc:
        # Docker keeps a health check's output (docker inspect): never the URL's password.
        return f"Redis at {display_url(url)}: {exc}"
    finally:
        client.close()
    return None if workers else f"no RQ worker of host {hostname} is registered"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in ("web", "worker"):
        print(__doc__, file=sys.stderr)
        return 2
    problem = check_web(*args[1:2]) if args[0] == "web" else check_worker()
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
