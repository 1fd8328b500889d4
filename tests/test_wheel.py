"""The wheel stands alone: built from a copy of the sources and installed into a fresh virtual environment
(not editable, no repository beside it, run from another folder), it extracts a page, runs the command
line, serves the bookmarklet, the install page and the API description, and carries all its package data.

The new environment has no pip and no dependencies of its own: it gets this environment's (a ``.pth``
file, added after the wheel is installed, so pip sees a clean environment) — nothing is downloaded.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parent.parent
#: What the wheel is built from (a copy: building in the repository would leave build/ and egg-info).
SOURCES = ("sitewise", "server", "worker", "bookmarklet", "pyproject.toml", "README.md")
#: Seconds building or installing may take on a busy machine.
STEP_TIMEOUT_S = 300
PAGE = """<!DOCTYPE html><html lang="en"><head><title>Harbor strike ends | The Gazette</title>
<meta name="author" content="Ada Brook"></head><body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Harbor strike ends</h1>""" + "<p>The harbor workers voted to end the strike after the port agreed to the union's terms, and the first ships were unloaded the same evening.</p>" * 4 + """
</article><footer>Copyright The Gazette</footer></body></html>"""


def setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def import_name(folder: str) -> str:
    """The name a top-level folder installs as (``server`` → ``sitewise.server`` under a package-dir
    mapping)."""
    mapped = {path: name for name, path in setuptools_config().get("package-dir", {}).items() if name}
    return mapped.get(folder, folder)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed (the test extra brings it): cannot build without downloading")
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=STEP_TIMEOUT_S,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    return next(out.glob("sitewise-*.whl"))


@pytest.fixture(scope="module")
def python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment's Python with the wheel installed (and this environment's dependencies)."""
    home = tmp_path_factory.mktemp("env") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True, timeout=STEP_TIMEOUT_S)
    interpreter = home / "bin" / "python"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(interpreter), "install", "--no-deps", "--no-index", str(wheel)],
        capture_output=True, text=True, timeout=STEP_TIMEOUT_S,
    )
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-3000:]
    purelib = subprocess.run(
        [str(interpreter), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()
    dependencies = [path for path in site.getsitepackages() if Path(path).is_dir()]
    (Path(purelib) / "outer_dependencies.pth").write_text("\n".join(dependencies) + "\n")
    return interpreter


def run_in(folder: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """A command in ``folder`` (not the repository), with an environment that names no source folder."""
    env = {"PATH": os.defpath, "HOME": str(folder), "SITEWISE_DATA_DIR": str(folder / "data")}
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT_S)


def test_the_wheel_holds_every_module_and_its_package_data(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = set()
    for folder in ("sitewise", "server", "worker", "bookmarklet"):
        prefix = import_name(folder).replace(".", "/")
        for path in (ROOT / folder).rglob("*"):
            relative = path.relative_to(ROOT / folder)
            if path.is_file() and "__pycache__" not in relative.parts and not (
                folder == "sitewise" and relative.parts[0] in ("server", "worker", "bookmarklet")
            ):
                expected.add(f"{prefix}/{relative.as_posix()}")
    assert expected - names == set()  # every module, script, template, schema, model file
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {import_name(f).split(".")[0] for f in ("sitewise", "server", "worker", "bookmarklet")}


def test_the_installed_wheel_extracts_serves_and_runs_the_command_line(python: Path, tmp_path: Path):
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    server, bookmarklet = import_name("server"), import_name("bookmarklet")
    home = python.parent.parent
    script = textwrap.dedent(f"""
        import json, sys
        from importlib import resources
        from pathlib import Path
        import sitewise
        answer = json.loads(sitewise.extract(open("page.html").read(), url="https://example.org/a", output="json"))
        import {server} as server_package
        from {server} import create_app
        from sitewise.config import Settings
        from sitewise.redis_conn import EmbeddedRedis, connect
        from sitewise.sample_site import generate_site
        from sitewise.store import Store
        served = {{}}
        with EmbeddedRedis(Path("redis").resolve()) as redis_server:
            app = create_app(Settings(data_dir=str(Path("data").resolve())), Store(connect(redis_server.url)))
            client = app.test_client()
            for path in ("/", "/bookmarklet/sitewise.js", "/bookmarklet/collect.js", "/static/style.css", "/api/openapi.json"):
                response = client.get(path)
                served[path] = (response.status_code, len(response.data))
        print(json.dumps({{
            "answer": answer,
            "files": [sitewise.__file__, server_package.__file__],
            "collect.js": len(resources.files("{bookmarklet}").joinpath("collect.js").read_text()),
            "schema": len(resources.files("sitewise").joinpath("schema/page.schema.json").read_text()),
            "sample_site": len(generate_site(seed=1).pages),
            "served": served,
        }}))
    """)
    done = run_in(tmp_path, [str(python), "-c", script])
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert all(Path(file).is_relative_to(home) for file in report["files"]), report["files"]  # the wheel's, not the repo's
    answer = report["answer"]
    assert answer["method"] == "mss" and answer["title"] == "Harbor strike ends | The Gazette"
    assert answer["author"] == "Ada Brook" and "first ships were unloaded" in answer["text"] and "Copyright" not in answer["text"]
    assert report["collect.js"] > 1000 and report["schema"] > 100 and report["sample_site"] > 1
    assert all(status == 200 and size > 0 for status, size in report["served"].values()), report["served"]

    extracted = run_in(tmp_path, [str(python), "-m", "sitewise", "extract", "page.html", "--no-store"])
    assert extracted.returncode == 0, extracted.stderr[-3000:]
    assert "first ships were unloaded" in extracted.stdout
    demo = run_in(tmp_path, [str(python.parent / "sitewise"), "demo", "--help"])
    assert demo.returncode == 0 and "usage: sitewise demo" in demo.stdout, demo.stderr[-3000:]
