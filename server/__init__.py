"""The sitewise web server: a thin Flask shell over ``sitewise`` (uploads, rules, extraction, dashboard).

``create_app(settings=None, store=None)`` builds the app; see ``docs/api.md`` for the HTTP API.
"""
from .app import create_app

__all__ = ["create_app"]
