"""sitewise: learn, site by site, where the article text of a web page is."""

__version__ = "0.1.0"
