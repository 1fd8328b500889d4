"""Where commands write what they made (``--out``): checked before the work starts, and written whole or
not at all, so a full disk or a folder given for a file never leaves half a file or loses an older one."""
from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path


def check_output_file(path: Path, option: str = "--out") -> None:
    """Refuse, before any work, an output file that cannot be written: a folder, or one in a folder that
    does not exist. Raises ValueError saying which."""
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; give a file")
    if not path.parent.is_dir():
        raise ValueError(f"{option} {path}: no such folder {path.parent}")


def output_folder(path: Path, option: str = "--out") -> Path:
    """``path`` as a folder to write files into, made if need be; ValueError when it is a file."""
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {path} is a file; give a folder")
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_whole(path: Path, text: str, errors: str = "strict") -> None:
    """Write ``text`` (UTF-8; ``errors`` as :func:`open` takes it) to ``path`` whole or not at all: into a
    temporary file beside it, renamed over it once written, so an error (a full disk) leaves what was there.
    A path that is no regular file (``/dev/stdout``, a pipe) is written as it is: renaming over it would
    replace it. An OSError names ``path`` (Python's own does not when writing fails)."""
    target = path.resolve()  # a symbolic link's file is replaced, not the link
    try:
        if target.exists() and not target.is_file():
            if target.is_dir():
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
            target.write_text(text, encoding="utf-8", errors=errors)
            return
        _replace_with(target, text, errors)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def _replace_with(target: Path, text: str, errors: str) -> None:
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8", errors=errors) as handle:  # (made as any new file is: the umask's mode)
            handle.write(text)
        if target.exists():
            shutil.copymode(target, temporary)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
