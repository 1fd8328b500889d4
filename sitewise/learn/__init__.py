"""Learning per-site rules: block features, DBSCAN clusters, tf-idf scoring, selection, CSS rules.

Importing this package is cheap; the heavy parts (numpy, scikit-learn) load with the modules that use
them. The public entry points are :class:`sitewise.learn.learner.SiteLearner` (learn) and
:func:`sitewise.learn.rules.apply_rules` (apply a rule set to HTML or to a collected page).

The package is also the library's ``sitewise.learn(pages)`` (:func:`sitewise.api.learn`): a package's
name is bound to the package on its parent as soon as anything imports it, so a function of that name
beside it would be replaced; the package is made callable instead.
"""
from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from ..page import Page


class _CallablePackage(types.ModuleType):
    def __call__(self, pages: Iterable["Page | dict[str, Any] | str | Path"], *, site: str | None = None) -> dict[str, Any]:
        """A site's rule set learned from its collected pages: :func:`sitewise.api.learn`."""
        from ..api import learn

        return learn(pages, site=site)


sys.modules[__name__].__class__ = _CallablePackage
