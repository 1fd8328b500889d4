"""Browser code: ``collect.js`` (block collection, the one source of truth for the bookmarklet and for
Playwright) and the bookmarklet's reader-side script. Python reads them through :func:`source`."""
from pathlib import Path

DIR = Path(__file__).resolve().parent


def source(name: str) -> str:
    """The text of one of this folder's scripts, e.g. ``source("collect.js")``."""
    return (DIR / name).read_text(encoding="utf-8")
