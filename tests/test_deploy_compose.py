"""docker-compose.yml and the Dockerfile: their structure (PyYAML; no Docker engine runs here), and the
very commands compose runs — web, scaled workers, health checks, collector — started locally against a
Redis on TCP, as the containers would be."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from learn_support import sample_pages
from sitewise.config import Settings
from sitewise.redis_conn import EmbeddedRedis
from sitewise.sample_site import generate_site

from reliability_support import free_port, http, page_dict, status_of, wait_for

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
DOCKERFILE = (ROOT / "Dockerfile").read_text()
SERVICES = COMPOSE["services"]
#: ``${NAME}``, ``${NAME:-default}``: a default holding no other ``${…}`` (nested ones go first).
_INTERPOLATION = re.compile(r"\$\{(\w+)(?::?[-?]([^${}]*))?\}")


def interpolate(value: str, variables: dict[str, str] | None = None) -> str:
    """compose's ``${NAME:-default}`` interpolation, nested defaults included (innermost first)."""
    while True:
        done = _INTERPOLATION.sub(lambda m: (variables or {}).get(m.group(1)) or m.group(2) or "", value)
        if done == value:
            return done
        value = done


def env_of(service: str, variables: dict[str, str] | None = None) -> dict[str, str]:
    """A service's environment as compose makes it from ``variables`` (a .env file), else the defaults."""
    return {k: interpolate(str(v), variables) for k, v in SERVICES[service]["environment"].items()}


def setting_variable(name: str) -> str:
    return "REDIS_URL" if name == "redis_url" else f"SITEWISE_{name.upper()}"


# -- structure -------------------------------------------------------------------------------------


def test_redis_is_append_only_on_a_named_volume():
    redis = SERVICES["redis"]
    assert redis["image"].startswith("redis:7")
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command and "--appendfsync always" in command
    # Bounded, and full means refusing writes, never evicting stored pages or queued jobs.
    assert "--maxmemory ${SITEWISE_REDIS_MAXMEMORY:-2gb}" in command and "--maxmemory-policy noeviction" in command
    volume, mount = redis["volumes"][0].split(":")[:2]
    assert mount == "/data" and volume in COMPOSE["volumes"]
    assert "redis-cli" in redis["healthcheck"]["test"] and "ping" in redis["healthcheck"]["test"]


def test_web_runs_gunicorn_with_the_app_factory_and_a_health_check():
    web = SERVICES["web"]
    assert web["command"][0] == "gunicorn" and web["command"][-1] == "sitewise.server:create_app()"
    assert "python:sitewise.gunicorn_config" in web["command"]
    assert any(str(p).endswith(":8000") for p in web["ports"])
    assert "/healthz" in " ".join(web["healthcheck"]["test"])
    assert web["depends_on"]["redis"]["condition"] == "service_healthy"
    assert web["build"]["target"] == "app"


def test_workers_scale():
    worker = SERVICES["worker"]
    # --scale worker=N needs no fixed name and no published port.
    assert "container_name" not in worker and "ports" not in worker
    assert worker["command"] == ["python", "-m", "sitewise.worker"]
    assert worker["image"] == SERVICES["web"]["image"]
    assert worker["stop_signal"] == "SIGTERM"  # RQ's warm shutdown: the job in hand finishes
    assert int(worker["stop_grace_period"].rstrip("s")) >= 30
    assert worker["healthcheck"]["test"][-1] == "worker"


def test_collector_has_debian_chromium_and_targets_the_web_service():
    collector = SERVICES["collector"]
    assert collector["build"]["target"] == "collector"
    assert "http://web:8000" in " ".join(collector["command"]) and "sitewise collect" in " ".join(collector["command"])
    assert collector["depends_on"]["web"]["condition"] == "service_healthy"
    stage = DOCKERFILE[DOCKERFILE.index("AS collector"):]
    assert re.search(r"apt-get install[^\n]*\bchromium\b", stage)
    assert not re.search(r"^RUN[^\n]*playwright install", DOCKERFILE, re.M)  # Debian's chromium, no download


def test_dockerfile_base_user_and_default_command():
    assert DOCKERFILE.startswith("# syntax=") and "FROM python:3.11-slim-bookworm AS app" in DOCKERFILE
    assert re.search(r"^USER sitewise$", DOCKERFILE, re.M)
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", DOCKERFILE, re.M).group(1))
    assert cmd == SERVICES["web"]["command"]


def test_the_image_runs_the_installed_package_not_the_copied_sources():
    # gunicorn and `python -m` put the working directory first on sys.path: a sitewise/ folder left there
    # would shadow the installed package, which alone holds sitewise.server and sitewise.worker
    install = re.search(r"^RUN pip install --no-deps \. && rm -rf (.*)$", DOCKERFILE, re.M)
    assert install and {"sitewise", "server", "worker", "bookmarklet"} <= set(install.group(1).split())


#: What the web service's gunicorn reads (sitewise.gunicorn_config, and gunicorn itself).
GUNICORN_VARIABLES = ("SITEWISE_LOG_LEVEL", "SITEWISE_WEB_PROCESSES", "SITEWISE_WEB_CONNECTIONS", "GUNICORN_CMD_ARGS")


def test_the_web_service_gets_every_gunicorn_setting_of_the_docs():
    env = env_of("web", {"SITEWISE_WEB_CONNECTIONS": "300", "GUNICORN_CMD_ARGS": "--timeout 120"})
    assert set(GUNICORN_VARIABLES) <= set(env)
    assert env["SITEWISE_WEB_CONNECTIONS"] == "300" and env["GUNICORN_CMD_ARGS"] == "--timeout 120"
    assert env_of("web")["GUNICORN_CMD_ARGS"] == ""  # unset: gunicorn reads nothing from it


def test_the_install_link_follows_the_published_port():
    assert env_of("web")["SITEWISE_PUBLIC_URL"] == "http://localhost:8000"
    assert env_of("web", {"SITEWISE_PORT": "9000"})["SITEWISE_PUBLIC_URL"] == "http://localhost:9000"
    chosen = {"SITEWISE_PORT": "9000", "SITEWISE_PUBLIC_URL": "https://sitewise.example.org"}
    assert env_of("web", chosen)["SITEWISE_PUBLIC_URL"] == "https://sitewise.example.org"
    assert any(str(p).startswith("${SITEWISE_PORT:-8000}:") for p in SERVICES["web"]["ports"])


def test_the_deploy_guide_shows_the_redis_command_compose_runs():
    command = " ".join(f'"{word}"' if " " in word else word for word in SERVICES["redis"]["command"])
    assert interpolate(command) in (ROOT / "docs" / "deploy.md").read_text()


def test_every_setting_is_configurable_and_every_variable_is_a_setting():
    expected = {setting_variable(f.name) for f in fields(Settings)}
    extra = set(GUNICORN_VARIABLES)
    for service in ("web", "worker", "collector"):
        names = set(env_of(service))
        assert expected <= names, (service, expected - names)
        assert names <= expected | extra, (service, names - expected - extra)
        assert env_of(service)["REDIS_URL"] == "redis://redis:6379/0"
    settings_doc = (ROOT / "docs" / "deploy.md").read_text()
    assert all(name in settings_doc for name in expected | extra)


# -- the same processes, started locally -----------------------------------------------------------


#: The folder of this Python's console scripts (``gunicorn``, ``sitewise``): on the image's PATH, but not
#: necessarily on the PATH of whoever runs the tests (a bare environment, no venv activated).
BIN = Path(sys.executable).parent
#: Image executables run here through this Python, never found on PATH.
_THROUGH_PYTHON = {"python": [sys.executable], "gunicorn": [sys.executable, "-m", "gunicorn"]}


def local(argv: list[str], port: int) -> list[str]:
    """A compose command as compose runs it (``$$`` is a literal ``$``), with the web service's address
    turned into this machine's, and the image's ``python``/``gunicorn`` this test's Python."""
    argv = [a.replace("$$", "$").replace("0.0.0.0:8000", f"127.0.0.1:{port}").replace("http://web:8000", f"http://127.0.0.1:{port}")
            .replace("http://127.0.0.1:8000", f"http://127.0.0.1:{port}") for a in argv]
    return _THROUGH_PYTHON.get(argv[0], argv[:1]) + argv[1:]


def image_env(variables: dict[str, str]) -> dict[str, str]:
    """This environment as the image has it: its console scripts first on PATH (the collector's
    ``sh -c 'exec sitewise collect …'`` finds ``sitewise`` there)."""
    path = os.pathsep.join([str(BIN), os.environ.get("PATH", os.defpath)])
    return {**os.environ, **variables, "PATH": path}


def test_compose_commands_run_as_a_system(tmp_path):
    """redis (TCP, like the redis service) + the web command + two replicas of the worker command; the
    health checks compose runs pass; a site uploaded through the web service gets learned; SIGTERM (what
    `docker compose stop` sends) stops web and workers cleanly."""
    port = free_port()
    with EmbeddedRedis(tmp_path / "redis", port=free_port()) as redis_server:
        env = image_env({**env_of("web"), "REDIS_URL": redis_server.url, "SITEWISE_DATA_DIR": str(tmp_path / "data")})
        logs = {name: open(tmp_path / f"{name}.log", "wb") for name in ("web", "worker-1", "worker-2")}
        processes = {
            "web": subprocess.Popen(local(SERVICES["web"]["command"], port), env=env, stdout=logs["web"], stderr=subprocess.STDOUT),
            **{name: subprocess.Popen(local(SERVICES["worker"]["command"], port), env=env, stdout=logs[name], stderr=subprocess.STDOUT)
               for name in ("worker-1", "worker-2")},
        }
        try:
            def healthy(service: str) -> bool:
                argv = local(SERVICES[service]["healthcheck"]["test"][1:], port)
                return subprocess.run(argv, env=env, capture_output=True, timeout=30).returncode == 0

            wait_for(lambda: healthy("web"), 90, "the web health check", 0.5)
            wait_for(lambda: healthy("worker"), 90, "the worker health check", 0.5)
            base = f"http://127.0.0.1:{port}"
            stories = int(env_of("web")["SITEWISE_MIN_PAGES_TO_LEARN"])  # compose's default: enough to be learned
            pages = sample_pages(generate_site(seed=5, stories=stories, features=0, name="compose"), base="http://compose.test")
            for page, sample in pages.values():
                if sample.article:
                    assert http("POST", f"{base}/api/pages", page.to_dict())[0] == 201
            wait_for(lambda: http("GET", f"{base}/rules/compose.test")[0] == 200, 120, "the site to be learned", 0.5)
        finally:
            for process in processes.values():
                process.send_signal(signal.SIGTERM)
            codes = {name: process.wait(timeout=90) for name, process in processes.items()}
            for log in logs.values():
                log.close()
    assert codes == {"web": 0, "worker-1": 0, "worker-2": 0}, {n: (tmp_path / f"{n}.log").read_text()[-2000:] for n in codes}


@pytest.mark.parametrize("level, logged", [("info", True), ("warning", False)])
def test_the_web_service_logs_the_apps_lines_at_the_level_of_the_settings(tmp_path, level, logged):
    """The app logs each write at INFO (the caller by its pseudonym): under gunicorn too, with time and
    level, and not below SITEWISE_LOG_LEVEL."""
    port = free_port()
    log_path = tmp_path / "web.log"
    with EmbeddedRedis(tmp_path / "redis", port=free_port()) as redis_server, open(log_path, "wb") as log:
        env = image_env({**env_of("web", {"SITEWISE_LOG_LEVEL": level}), "REDIS_URL": redis_server.url,
                         "SITEWISE_DATA_DIR": str(tmp_path / "data"), "SITEWISE_WEB_PROCESSES": "1"})
        web = subprocess.Popen(local(SERVICES["web"]["command"], port), env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: status_of(f"http://127.0.0.1:{port}/healthz") == 200, 90, "the web server", 0.5)
            assert http("POST", f"http://127.0.0.1:{port}/api/pages", page_dict("http://logs.test/a"))[0] == 201
        finally:
            web.send_signal(signal.SIGTERM)
            web.wait(timeout=60)
    written = re.search(r"^\d{4}-\d\d-\d\d [\d:,]+ INFO server: \w+ POST /api/pages 201 ", log_path.read_text(), re.M)
    assert bool(written) == logged, log_path.read_text()


@pytest.mark.browser
def test_collector_command_uploads_to_the_web_service(tmp_path, sample_site_url):
    """The collector service's command (URLs from collect/urls.txt, uploads to the web service)."""
    from sitewise.redis_conn import connect
    from sitewise.store import Store

    port = free_port()
    with EmbeddedRedis(tmp_path / "redis", port=free_port()) as redis_server:
        env = image_env({**env_of("collector"), "REDIS_URL": redis_server.url, "SITEWISE_DATA_DIR": str(tmp_path)})
        web = subprocess.Popen(local(SERVICES["web"]["command"], port), env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            wait_for(lambda: status_of(f"http://127.0.0.1:{port}/healthz") == 200, 90, "the web server", 0.5)
            urls = tmp_path / "urls.txt"
            urls.write_text(f"# sample articles\n{sample_site_url}/\n")
            command = [a.replace("/collect/urls.txt", str(urls)) for a in local(SERVICES["collector"]["command"], port)]
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
            assert result.returncode == 0, result.stderr[-3000:]
            assert Store(connect(redis_server.url)).page_count("127.0.0.1") == 1
        finally:
            web.send_signal(signal.SIGTERM)
            web.wait(timeout=60)
