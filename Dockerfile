# syntax=docker/dockerfile:1
# sitewise images. Two targets from one file:
#   app        web server (gunicorn) and learning workers (RQ)       docker build --target app .
#   collector  app + Debian's chromium, for `sitewise collect`       docker build --target collector .
# docker-compose.yml builds both; see docs/deploy.md.

FROM python:3.11-slim-bookworm AS app
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SITEWISE_DATA_DIR=/data
# An unprivileged user owns the data directory; nothing in the container runs as root.
RUN useradd --create-home --uid 10001 sitewise && mkdir -p /data && chown sitewise /data
WORKDIR /app
# Dependencies first, so a source change does not reinstall them (every dependency ships wheels): the
# list in pyproject.toml, read with the standard library, at the versions of constraints.txt (the ones the
# shipped model was trained and the suite run with).
COPY pyproject.toml README.md constraints.txt ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -c constraints.txt -r /tmp/requirements.txt && rm /tmp/requirements.txt
COPY sitewise ./sitewise
COPY server ./server
COPY worker ./worker
COPY bookmarklet ./bookmarklet
# Installed, then the sources go: /app is the working directory (gunicorn and `python -m` put it first on
# sys.path), and a sitewise/ folder there would shadow the installed package, whose sitewise.server,
# sitewise.worker and sitewise.bookmarklet come from the folders beside it (pyproject's package-dir).
RUN pip install --no-deps . && rm -rf build sitewise server worker bookmarklet
USER sitewise
VOLUME ["/data"]
EXPOSE 8000
# The web server by default; compose overrides the command for workers and the collector.
CMD ["gunicorn", "--config", "python:sitewise.gunicorn_config", "--bind", "0.0.0.0:8000", "sitewise.server:create_app()"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-m", "sitewise.healthcheck", "web"]

FROM app AS collector
USER root
# Debian's own chromium (Playwright drives it through executable_path; `playwright install` is never run),
# and its headless shell, which the collector prefers (the same engine, a third less CPU per page).
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium chromium-headless-shell fonts-liberation fonts-noto-core \
    && rm -rf /var/lib/apt/lists/*
USER sitewise
HEALTHCHECK NONE
CMD ["sitewise", "collect", "--help"]
