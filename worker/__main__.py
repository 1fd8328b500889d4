"""``python -m worker``: an RQ worker for the learning queue, on the configured Redis (``REDIS_URL``,
else the embedded Redis in ``SITEWISE_DATA_DIR``). SIGTERM finishes the job in hand first."""
from __future__ import annotations

import logging
import sys

from rq import Worker

from sitewise.config import Settings
from sitewise.redis_conn import connect

from .queue import learn_queue

#: How often a worker looks for jobs abandoned by a worker that died whole (its heartbeat lapsed) and
#: retries them; RQ's default of 10 minutes would leave a site unlearned that long.
MAINTENANCE_INTERVAL_S = 60


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    settings = Settings.from_env()
    connection = connect(settings.redis_url, settings.data_dir)
    worker = Worker([learn_queue(connection)], connection=connection, maintenance_interval=MAINTENANCE_INTERVAL_S)
    worker.work()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
