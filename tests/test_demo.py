"""The README's main command: `sitewise demo` brings up Redis, the web server and workers, collects the
sample site in Chromium, learns it, and stops cleanly; a port something else holds stops it at once."""
import contextlib
import http.server
import socket
import subprocess
import sys
import threading

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.browser
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


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Another program's server: answers everything 200 and remembers what it was sent."""

    requests: list[str] = []

    def _answer(self) -> None:
        self.requests.append(f"{self.command} {self.path}")
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def another_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("option", ["--port", "--site-port"])
def test_demo_on_a_port_another_program_holds_stops_in_one_line_and_sends_it_nothing(option, tmp_path):
    _Recorder.requests.clear()
    with another_server() as taken:
        ports = {"--port": free_port(), "--site-port": free_port(), option: taken}
        command = [sys.executable, "-m", "sitewise", "demo", "--exit-when-ready", "--workers", "1",
                   "--data-dir", str(tmp_path), *(str(word) for pair in ports.items() for word in pair)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert f"port {taken} on " in done.stderr and f"is in use by another program: stop it, or choose another port with {option}" in done.stderr
    assert "Traceback" not in done.stderr and "sitewise demo is running" not in done.stderr
    assert _Recorder.requests == []
