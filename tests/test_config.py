"""Settings from the environment: a value a setting cannot take is one clear error naming the variable, at
every entry point; the library reads only the settings it needs."""
from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

import sitewise
from sitewise.cli import main
from sitewise.config import SettingError, Settings

ARTICLE = "<p>The harbor workers voted to end the strike on Tuesday after a long night of talks.</p>"


@pytest.mark.parametrize("value", ["abc", "-3", "1.5", "٣"])
def test_a_bad_whole_number_names_its_variable_and_value(value, monkeypatch):
    monkeypatch.setenv("SITEWISE_RELEARN_AFTER", value)
    with pytest.raises(SettingError, match=f"SITEWISE_RELEARN_AFTER={value!r} is not valid: it must be a whole number"):
        Settings.from_env()


@pytest.mark.parametrize("value, expected", [("1", True), ("TRUE", True), ("yes", True), ("On", True),
                                             ("0", False), ("false", False), ("No", False), ("", False)])
def test_a_flag_takes_the_usual_spellings(value, expected, monkeypatch):
    monkeypatch.setenv("SITEWISE_ALLOW_PRIVATE_NETWORK", value)
    assert Settings.from_env().allow_private_network is expected


def test_a_bad_flag_says_what_it_must_be(monkeypatch):
    monkeypatch.setenv("SITEWISE_ALLOW_PRIVATE_NETWORK", "maybe")
    with pytest.raises(SettingError, match="SITEWISE_ALLOW_PRIVATE_NETWORK='maybe' is not valid: it must be 1 or 0"):
        Settings.from_env()


def test_the_library_does_not_read_the_servers_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEWISE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEWISE_ALLOW_PRIVATE_NETWORK", "maybe")
    monkeypatch.setenv("SITEWISE_RELEARN_AFTER", "abc")
    assert "harbor workers" in sitewise.extract(ARTICLE)


def test_the_command_line_says_which_variable_in_one_line(monkeypatch, capsys):
    monkeypatch.setenv("SITEWISE_RELEARN_AFTER", "abc")
    assert main(["rules", "example.com"]) == 2
    assert capsys.readouterr().err == (
        "sitewise rules: error: SITEWISE_RELEARN_AFTER='abc' is not valid: it must be a whole number, 0 or more\n")


@pytest.mark.parametrize("command, variable", [
    (["-m", "sitewise.worker"], "SITEWISE_RELEARN_AFTER"),
    (["-m", "sitewise", "up", "--port", "1"], "SITEWISE_RELEARN_AFTER"),
    (["-m", "sitewise", "up", "--port", "1"], "SITEWISE_WEB_CONNECTIONS"),  # gunicorn's, checked by up first
])
def test_services_refuse_a_bad_setting_in_one_line_without_starting(command, variable, tmp_path):
    env = {**os.environ, "SITEWISE_DATA_DIR": str(tmp_path), variable: "many"}
    result = subprocess.run([sys.executable, *command], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert f"{variable}='many' is not valid: it must be a whole number" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize("value, level", [("warning", logging.WARNING), (" DEBUG ", logging.DEBUG), ("loud", logging.INFO)])
def test_the_workers_log_at_the_services_level(monkeypatch, value, level):
    """SITEWISE_LOG_LEVEL is the workers' level as well as the web server's (compose passes it to both); a
    name that is no level is INFO, as gunicorn reads it."""
    from sitewise.worker import __main__ as worker_main

    chosen = {}
    monkeypatch.setattr(logging, "basicConfig", lambda **options: chosen.update(options))
    monkeypatch.setenv("SITEWISE_LOG_LEVEL", value)
    monkeypatch.setenv("SITEWISE_UPLOADS_PER_MINUTE", "many")  # a bad setting: main() stops right after
    assert worker_main.main() == 2
    assert chosen["level"] == level
