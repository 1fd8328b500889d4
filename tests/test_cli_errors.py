"""The command line's errors: one clear line on stderr and the documented exit status (2: bad arguments,
1: an input or the store failed), never a traceback."""
from __future__ import annotations

from sitewise.cli import main


def test_learning_from_files_that_do_not_exist_says_so(tmp_path, capsys):
    assert main(["learn", "--files", str(tmp_path), str(tmp_path / "missing"), "/no/such/folder"]) == 2
    assert f"no such file or folder: {tmp_path / 'missing'}, /no/such/folder" in capsys.readouterr().err
