"""Maximum Subsequence Segmentation end to end: HTML in, article text (or nothing) out.

Phases of :meth:`MSS.extract`, in order: parse (and read the headline) → clean the DOM → find the
heading that repeats the headline → tokenize → score tokens → make closing lines ("Leave a Reply",
"Related Posts") impassable → find the best run (optionally with a lead chunk just before it) → prefer
the best run through the title heading when the best run misses it → optionally cut it at its first
``<hr>`` → prune the block → decide whether it is an article → text. :func:`extract_mss` is the one-call entry point the rest of sitewise
uses; :class:`BaselineMSS` and :class:`SupervisedMSS` are the registered extractors
(``mss-baseline`` and ``mss``).
"""
from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, Union

import numpy as np

from ..extractors import Document
from ..gcpause import cyclic_gc_paused
from ..mojibake import repair_mojibake
from .blockmodel import BlockModel, Favor, page_blocks
from .boundaries import BOUNDARY_SCORE, closing_lines
from .clean import CleanOptions, clean_dom, prune_block
from .confidence import reading_facts
from .scorers import BaselineScorer, LineScorer, Scorer
from .search import Segment, anchored, k_best, max_subsequence
from .title import anchor_heading, headline_alternatives, page_headline
from .tokenize import OPEN, WORD, TokenSequence, parse_html, tokenize

log = logging.getLogger(__name__)

#: An extraction without a single line (block) of this many words is not an article: on a listing page
#: the best run is headlines and one-line teasers, on an error page a sentence. (The benchmark sets'
#: mean F1 did not move between 10 and 20; docs/bench-mss.md.)
MIN_PARAGRAPH_WORDS = 20
#: Optional (off by default: no measurable gain, docs/bench-mss.md): a second chunk joins the best one
#: only if it is this close before it (tokens): the lead paragraph or
#: headline set apart from the body by a byline or share bar, not a sidebar at the other end of the page.
LEAD_CHUNK_MAX_GAP = 60
#: ... and only if it is worth at least this share of the best chunk's value (a real paragraph, not one
#: stray positive token).
LEAD_CHUNK_MIN_SHARE = 0.02

#: A run through the title heading passes the article test without a long paragraph (a short post is
#: still the page's story) but needs this many words besides the heading: a heading alone is an empty
#: archive or error page ...
MIN_TITLED_BODY_WORDS = 5
#: ... unless a picture or video follows it closely: a picture post is its heading alone (dragnet train:
#: such posts declined as "no article" cost 0.005 of mean F1; an archive's heading is followed by links).
POST_MEDIA_TAGS = frozenset({"img", "iframe", "video", "embed", "object"})
#: ... within this many word tokens after the run: a post's category, byline and date line.
MAX_WORDS_BEFORE_MEDIA = 20

#: The paper's <hr> constraint (cut the block at its first <hr>) is available but off by default: it cost
#: F1 on all three benchmark sets (docs/bench-mss.md); <hr> separates sections of many non-news pages.
HR_CUT, HR_OFF = "cut", "off"
#: An answer's confidence is given to this many decimals: an estimate, not a measurement.
CONFIDENCE_DECIMALS = 3


@dataclass(frozen=True)
class MSSResult:
    """What MSS found on a page. ``text`` is empty when the page has no article."""

    #: The article text, one block per line ("" when the page has no article), its mojibake put right
    #: (:func:`~sitewise.mojibake.repair_mojibake`).
    text: str
    #: Token span ``(start, end)`` of the extracted block (half-open), or None when nothing was found.
    span: tuple[int, int] | None
    #: Sum of the token scores over the span (0.0 when nothing was found).
    score: float
    #: Why the page was judged to have no article ("" when it has one).
    reason: str = ""
    #: The answer's estimated word F1 (:mod:`sitewise.mss.confidence`): None when nothing was found or
    #: the model carries no estimate.
    confidence: float | None = None
    #: The reading's facts the estimate is made from (:func:`~sitewise.mss.confidence.reading_facts`;
    #: block pipeline only, None when nothing was found).
    facts: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: The page's tokens, for :attr:`html` (made only when asked for: most callers want the text).
    tokens: TokenSequence | None = field(default=None, repr=False, compare=False)

    @property
    def html(self) -> str:
        """The extracted block as an HTML fragment (normalised tags, words as written)."""
        if self.tokens is None or self.span is None or not self.text:
            return ""
        return self.tokens.html(*self.span)

    @property
    def found(self) -> bool:
        return bool(self.text)


class MSS:
    """The MSS extraction pipeline around one token scorer."""

    def __init__(
        self,
        scorer: Scorer | None = None,
        clean: CleanOptions = CleanOptions(),
        hr: str = HR_OFF,
        lead_chunk: bool = False,
        min_paragraph_words: int = MIN_PARAGRAPH_WORDS,
        title_anchor: bool = True,
        boundaries: bool = True,
    ):
        if hr not in (HR_CUT, HR_OFF):
            raise ValueError(f"hr must be {HR_CUT!r} or {HR_OFF!r}, not {hr!r}")
        self.scorer = scorer or LineScorer()
        self.clean = clean
        self.hr = hr
        self.lead_chunk = lead_chunk
        self.min_paragraph_words = min_paragraph_words
        self.title_anchor = title_anchor
        self.boundaries = boundaries

    def tokens(self, html: str | bytes) -> TokenSequence:
        """The cleaned page's tokens (parse → clean → tokenize), with the title heading as the anchor."""
        return self._anchored_tokens(html)[0]

    def _anchored_tokens(self, html: str | bytes, include_comments: bool = False) -> tuple[TokenSequence, bool]:
        """The tokens, and whether the anchor repeats the page's headline (not another part of the title,
        which may be the site's name). ``include_comments``: comment sections are not cleaned away."""
        root = parse_html(html)
        if root is None:
            return tokenize(None), False
        headline = page_headline(root) if self.title_anchor else []
        alternatives = headline_alternatives(root, headline) if self.title_anchor else []
        cleaned = clean_dom(root, self.clean.with_changes(comment_threads=False) if include_comments else self.clean)
        heading, repeats_headline = anchor_heading(cleaned, headline, alternatives)
        return tokenize(cleaned, heading), repeats_headline

    @cyclic_gc_paused  # the token walk's allocations, as in BlockMSS.extract
    def extract(self, html: str | bytes, url: str | None = None, include_comments: bool = False,
                favor: Favor = None) -> MSSResult:
        """The article of a page (``url`` and ``favor`` are accepted for the block pipeline's sake and not
        used: a token scorer has one reading). ``include_comments``: comment sections stay in the page and
        are scored like any other text."""
        tokens, repeats_headline = self._anchored_tokens(html, include_comments)
        if not len(tokens):
            return MSSResult("", None, 0.0, reason="no tokens")
        scores = self.scorer.score(tokens)
        if self.boundaries:
            scores = scores.copy()
            scores[closing_lines(tokens)] += BOUNDARY_SCORE
        segment = self._best_segment(scores)
        if segment is None:
            return MSSResult("", None, 0.0, reason="no positive run")
        if self.title_anchor:
            segment = anchored(segment, scores, tokens.anchor)
        start, end = segment.start, segment.end
        if self.hr == HR_CUT:
            end = cut_at_hr(tokens, start, end)
        keep = prune_block(tokens, start, end, self.clean)
        value = float(scores[start:end].sum())
        longest = _longest_line(tokens, start, end, keep)
        # a run through the heading that repeats the title is the page's own story, however short, as
        # long as there is more to it than the heading, or a picture or video under it
        titled = self.title_anchor and start <= tokens.anchor < end and (
            _words_outside(tokens, start, end, tokens.anchor) >= MIN_TITLED_BODY_WORDS
            or (repeats_headline and _media_follows(tokens, end)))
        if longest < self.min_paragraph_words and not titled:
            reason = f"no paragraph of {self.min_paragraph_words} words (longest: {longest})"
            return MSSResult("", (start, end), value, reason=reason)
        return MSSResult(repair_mojibake(tokens.text(start, end, keep)), (start, end), value, tokens=tokens)

    def _best_segment(self, scores: np.ndarray) -> Segment | None:
        if not self.lead_chunk:
            return max_subsequence(scores)
        best_two = k_best(scores, 2)
        if not best_two:
            return None
        best = best_two[0]
        if len(best_two) == 2:
            lead = best_two[1]
            if (
                lead.end <= best.start
                and best.start - lead.end <= LEAD_CHUNK_MAX_GAP
                and lead.value >= LEAD_CHUNK_MIN_SHARE * best.value
            ):
                return Segment(lead.start, best.end, lead.value + best.value + float(scores[lead.end : best.start].sum()))
        return best


def _words_outside(tokens: TokenSequence, start: int, end: int, element: int) -> int:
    """Word tokens in ``start``..``end`` that are not inside the element opened at token ``element``."""
    inside = np.zeros(len(tokens), dtype=bool)
    inside[element : int(tokens.closes[element]) + 1] = True
    in_run = np.zeros(len(tokens), dtype=bool)
    in_run[start:end] = True
    return int(np.count_nonzero(in_run & ~inside & (tokens.kinds == WORD)))


def _media_follows(tokens: TokenSequence, end: int) -> bool:
    """Whether a picture or video opens within :data:`MAX_WORDS_BEFORE_MEDIA` words after token ``end``."""
    words = 0
    for i in range(end, len(tokens)):
        if tokens.kinds[i] == WORD:
            words += 1
            if words > MAX_WORDS_BEFORE_MEDIA:
                return False
        elif tokens.kinds[i] == OPEN and tokens.tags[i] in POST_MEDIA_TAGS:
            return True
    return False


def _longest_line(tokens: TokenSequence, start: int, end: int, keep: np.ndarray) -> int:
    """Words (not symbols; a CJK character counts as a word) in the longest kept line of the block."""
    candidates = np.flatnonzero(keep[start:end] & (tokens.kinds[start:end] == WORD)) + start
    if not candidates.size:
        return 0
    words = tokens.words
    counted = candidates[np.fromiter((words[i][0].isalnum() for i in candidates.tolist()), bool, candidates.size)]
    return int(np.bincount(tokens.lines[counted]).max()) if counted.size else 0


def cut_at_hr(tokens: TokenSequence, start: int, end: int) -> int:
    """The paper's constraint: an article holds no ``<hr>``, so the block ends at the first one in it."""
    for i in range(start + 1, end):
        if tokens.kinds[i] == OPEN and tokens.tags[i] == "hr":
            return i
    return end


# -- the one-call entry point -----------------------------------------------------------------------


#: Fewer words than this are a stray label ("Home", a date), never main content: of the benchmark sets'
#: 4,968 truths that are not empty, none has fewer than 5 words outside dragnet and readability-testpages
#: (13 pages under 10 words between them).
MIN_ARTICLE_WORDS = 5


class BlockMSS:
    """MSS over the page's blocks scored by a trained :class:`~sitewise.mss.blockmodel.BlockModel`: the
    shipped fallback (see :mod:`sitewise.mss.blockmodel`)."""

    def __init__(self, model: BlockModel):
        self.model = model

    # the token walk keeps every element it passes alive until the page is done, and collections
    # triggered by its allocations walked them again and again: about 0.6 ms of a 13 ms page
    @cyclic_gc_paused
    def extract(self, html: str | bytes, url: str | None = None, include_comments: bool = False,
                favor: Favor = None) -> MSSResult:
        """The article of a page. ``include_comments``: a comment thread after the article is judged like
        any other text instead of leaving (:data:`~sitewise.mss.blockmodel.COMMENT_THREAD_DEPTH`).
        ``favor``: "precision" or "recall" reads with the model's settings for it
        (:data:`~sitewise.mss.blockmodel.FAVORED_READINGS`)."""
        model = self.model.favoring(favor)
        blocks = page_blocks(html, url)
        if not blocks.lines.size:
            return MSSResult("", None, 0.0, reason="no text")
        probabilities = model.predict_proba(blocks.features)
        words = blocks.words
        comments = None if include_comments else blocks.comments
        keep = model.select(probabilities, words, blocks.boundaries, comments, section=blocks.section,
                            titled=blocks.titled)
        keep &= ~blocks.linked_edges(keep)
        keep &= ~blocks.copies(keep)
        keep &= ~blocks.unseen_few(keep)
        if not keep.any():
            return MSSResult("", None, 0.0, reason="no block scored as article")
        if words[keep].sum() < MIN_ARTICLE_WORDS:
            return MSSResult("", None, 0.0, reason=f"fewer than {MIN_ARTICLE_WORDS} words scored as article")
        tokens = blocks.tokens
        kept_lines = blocks.lines[keep]
        in_kept = np.flatnonzero(np.isin(tokens.lines, kept_lines) & (tokens.kinds == WORD))
        value = float(model.block_scores(probabilities, words)[keep].sum())
        facts = reading_facts(probabilities, words, keep, section=blocks.section, titled=blocks.titled)
        estimate = model.confidence_
        confidence = round(float(estimate.predict(facts)[0]), CONFIDENCE_DECIMALS) if estimate is not None else None
        return MSSResult(repair_mojibake(blocks.text(keep)), (int(in_kept[0]), int(in_kept[-1]) + 1), value,
                         confidence=confidence, facts=facts, tokens=tokens)


#: What extracts a page: the token pipeline around a scorer, or the block pipeline around a block model.
Pipeline = Union[MSS, BlockMSS]


def extract_mss(html: str | bytes, model: Scorer | BlockModel | str | Path | None = None,
                url: str | None = None, include_comments: bool = False, favor: Favor = None) -> MSSResult:
    """The article of one page by MSS, or an empty result when it has none.

    ``model``: a block model, a token scorer, a model file, or None for the configured model
    (``SITEWISE_MSS_MODEL``, else ``<data_dir>/mss-model.json.gz``, else the shipped block model),
    falling back to the hand-set line scorer. ``url``, when known, is one of the block model's signals.
    ``include_comments``: an article's comment thread is judged like any other text instead of leaving.
    ``favor``: "precision" or "recall" for a block model's reading that favours it (None: balanced).
    """
    return fallback_pipeline(model).extract(html, url, include_comments, favor)


def fallback_pipeline(model: Scorer | BlockModel | str | Path | None = None) -> Pipeline:
    """The pipeline for ``model`` (see :func:`extract_mss`), cached per model."""
    if model is None or isinstance(model, (str, Path)):
        model = load_scorer(model)
    return _pipeline(model)


@functools.lru_cache(maxsize=8)
def _pipeline(model: Scorer | BlockModel) -> Pipeline:
    return BlockMSS(model) if isinstance(model, BlockModel) else MSS(model)


def load_scorer(path: str | Path | None = None) -> Scorer | BlockModel:
    """The model in ``path`` (or the configured, else the shipped one): a block model or a Naive Bayes
    token scorer; the hand-set line scorer when there is none."""
    from .model import SHIPPED_MODEL, resolve_model_path

    resolved = resolve_model_path(path)
    if resolved is None:
        return _line_scorer()
    if path is None and resolved != SHIPPED_MODEL:
        return _load_configured(str(resolved), resolved.stat().st_mtime_ns)
    return _load_cached(str(resolved), resolved.stat().st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _load_configured(path: str, mtime_ns: int) -> Scorer | BlockModel:
    """The configured model, or the shipped one when it cannot be read: a self-trained file outlives an
    upgrade that changes the block features (or is damaged), and must not take every site's fallback down
    with it. Said once per file version; the next self-training replaces the file."""
    from .model import SHIPPED_MODEL, ModelError

    try:
        return _load_cached(path, mtime_ns)
    except ModelError as exc:
        log.error("%s; the shipped MSS model is used instead (remove or replace that file)", exc)
        return load_scorer(SHIPPED_MODEL) if SHIPPED_MODEL.is_file() else _line_scorer()


@functools.lru_cache(maxsize=1)
def _line_scorer() -> Scorer:
    # One per process: said once, and the pipeline built on it is cached like a model's.
    log.info("no MSS model found; using the line scorer")
    return LineScorer()


@functools.lru_cache(maxsize=4)
def _load_cached(path: str, mtime_ns: int) -> Scorer | BlockModel:
    from .model import load_model

    log.info("MSS model: %s", path)
    return load_model(path)


# -- registered extractors --------------------------------------------------------------------------


class _MSSExtractor:
    needs_page = False
    per_site = False
    name = "mss"

    def __init__(self, pipeline: Pipeline):
        self.pipeline = pipeline

    def fit(self, documents: Sequence[Document]) -> "_MSSExtractor":
        return self

    def extract(self, document: Document) -> str:
        return self.extract_detailed(document)[0]

    def extract_detailed(self, document: Document) -> tuple[str, dict[str, Any]]:
        if not document.html:
            return "", {"method": self.name, "reason": "no html"}
        result = self.pipeline.extract(document.html, document.url)
        info: dict[str, Any] = {"method": self.name, "mss_score": round(result.score, 3)}
        if result.reason:
            info["reason"] = result.reason
        return result.text, info


class BaselineMSS(_MSSExtractor):
    """MSS with the paper's untrained scorer (tags −3.25, words +1) and the clean-up."""

    name = "mss-baseline"

    def __init__(self, tag_score: float | str = BaselineScorer.tag_score, **options: Any):
        super().__init__(MSS(BaselineScorer(tag_score=float(tag_score)), **_pipeline_options(options)))


class LineMSS(_MSSExtractor):
    """MSS over tokens with the hand-set line scorer (the fallback before a model shipped)."""

    name = "mss-line"

    def __init__(self, **options: Any):
        super().__init__(MSS(LineScorer(), **_pipeline_options(options)))


class SupervisedMSS(_MSSExtractor):
    """MSS with the model from ``model`` (or the configured, else the shipped model): the block model,
    or a Naive Bayes token scorer (options then tune the token pipeline)."""

    name = "mss"

    def __init__(self, model: str | Path | None = None, **options: Any):
        loaded = load_scorer(model)
        if isinstance(loaded, BlockModel):
            if options:
                raise ValueError(f"option(s) {', '.join(sorted(options))} apply to the token pipeline, "
                                 "not to the block model")
            super().__init__(BlockMSS(loaded))
        else:
            super().__init__(MSS(loaded, **_pipeline_options(options)))


def _pipeline_options(options: dict[str, Any]) -> dict[str, Any]:
    """Extractor options (strings from the command line) → :class:`MSS` keyword arguments."""
    clean_changes = {k[len("clean_"):]: _flag(v) for k, v in options.items() if k.startswith("clean_")}
    rest = {k: v for k, v in options.items() if not k.startswith("clean_")}
    unknown = set(rest) - {"hr", "lead_chunk", "min_paragraph_words", "title_anchor", "boundaries"}
    if unknown:
        raise ValueError(f"unknown MSS option(s): {', '.join(sorted(unknown))}")
    out: dict[str, Any] = {"clean": CleanOptions().with_changes(**clean_changes)}
    if "hr" in rest:
        out["hr"] = str(rest["hr"])
    for flag in ("lead_chunk", "title_anchor", "boundaries"):
        if flag in rest:
            out[flag] = _flag(rest[flag])
    if "min_paragraph_words" in rest:
        out["min_paragraph_words"] = int(rest["min_paragraph_words"])
    return out


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"not a yes/no value: {value!r}")
