"""Maximum Subsequence Segmentation (Pasternack & Roth, WWW 2009): the fallback for sites not learned yet.

Score every token of the page with a local classifier, take the contiguous run with the highest total.
``extract_mss(html)`` is the entry point; see :mod:`sitewise.mss.extractor`.
"""
from .extractor import MSS, MSSResult, extract_mss

__all__ = ["MSS", "MSSResult", "extract_mss"]
