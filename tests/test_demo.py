"""The README's main command: `sitewise demo` brings up Redis, the web server and workers, collects the
sample site in Chromium, learns it, and stops cleanly."""
import socket
import subprocess
import sys

import pytest

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_demo_learns_the_sample_site_and_stops(tmp_path):
    command = [sys.executable, "-m", "sitewise", "demo", "--exit-when-ready", "--workers", "1",
               "--port", str(free_port()), "--site-port", str(free_port()), "--data-dir", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=420)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert "sitewise demo is running." in log
    assert "2 template(s)" in log  # the story and feature layouts were told apart
    assert "sitewise stopped" in log
    # Redis persisted to the data dir given (one append-only file, or a folder of them on Redis ≥ 7)
    assert (tmp_path / "appendonly.aof").is_file() or (tmp_path / "appendonlydir").is_dir()
