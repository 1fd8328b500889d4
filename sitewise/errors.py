"""The errors sitewise's library raises, in a module of their own: any module can raise them without importing
the API (the fallback's parser refuses pages too deep for it)."""
from __future__ import annotations


class SitewiseError(Exception):
    """Base of the errors sitewise's library raises."""


class InputError(SitewiseError, ValueError):
    """The input cannot be read as asked: empty, binary, too large, a bad URL, a broken rule set, pages
    that cannot be learned from. The message says which."""
