"""Options a command, as it is called, would not read: refused with one line naming them (exit 2), never
dropped without a word."""
from __future__ import annotations


def refuse_unused(options: dict[str, bool], why: str) -> None:
    """Raise ValueError naming the options given (True in ``options``) and saying ``why`` they are not read."""
    given = [name for name, is_given in options.items() if is_given]
    if given:
        raise ValueError(f"{', '.join(given)}: {why}")
