"""sitewise: learn, site by site, where the article text of a web page is.

The library in five lines::

    import sitewise
    text = sitewise.extract(html, url="https://example.org/a")                 # the fallback
    rules = sitewise.learn(["page1.json", "page2.json", ...])                  # collected pages of a site
    print(sitewise.extract(html, url="https://example.org/a", rules=rules, output="json"))
    sitewise.extract(html, url=url, rules="http://localhost:8000", output="markdown")  # a server's rules

See :mod:`sitewise.api` and ``docs/api.md``. (``sitewise.learn`` is also the learning package,
made callable: :func:`sitewise.api.learn`.) Importing sitewise is cheap: the parser, the learner and
the fallback load on first use.
"""

__version__ = "0.1.0"

from . import learn
from .api import InputError, RulesUnavailable, SitewiseError, extract, load_rules

__all__ = ["__version__", "extract", "learn", "load_rules", "SitewiseError", "InputError", "RulesUnavailable"]
