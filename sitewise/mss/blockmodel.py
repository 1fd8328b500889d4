"""The block model: a gradient-boosted classifier that scores every block (line) of a page, and the
MSS pipeline that decodes its scores into the article.

:class:`BlockModel` follows scikit-learn's estimator style (``fit`` / ``predict_proba``, learned
attributes ending in ``_``): it is fitted with scikit-learn's ``HistGradientBoostingClassifier`` and
predicts with the exported trees (:mod:`.forest`), so extraction imports neither scikit-learn nor
pickle. :class:`BlockMSS` is the pipeline: parse → read what the page says of itself → find the
heading that repeats the title → tokenize → describe each block (:mod:`.blocks`) → P(article) per
block → maximum-subsequence decoding over the blocks → text.

Decoding is the paper's maximum subsequence, over blocks instead of tokens: a block scores
``(P(article) − threshold) × its words``. The best run is the article; where the main content is split
(forum posts between signatures, product sections between widgets), the other maximal runs
(Ruzzo & Tompa) join it when each is worth at least :attr:`BlockModel.min_segment_share` of it. A page
whose reading keeps next to nothing of what the model finds plausible is read again at a lower threshold
(:data:`RELAXED_THRESHOLD`): the cards of collections and listings (on a page that reads as a section
rather than one item, a first reading of more words too: :data:`MAX_SECTION_SCANT_WORDS`). Once a
reading has kept a block outside any comment thread, the thread blocks after it leave
(:data:`COMMENT_THREAD_DEPTH`, :data:`CLOSED_THREAD_DEPTH`, :func:`after_thread_heading`). A kept block
that repeats another where a reader sees only one of them (out of sight, or made for another screen) leaves
(:meth:`PageBlocks.copies`), and so do the kept blocks out of a reader's sight where they are few
(:meth:`PageBlocks.unseen_few`).
"""
from __future__ import annotations

import copy
import functools
import gzip
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional

import numpy as np

from .blocks import FAR, FEATURE_NAMES, MAX_CACHED_NAMES, block_features, page_signals, reads_as_section
from .boundaries import BOUNDARY_SCORE, closing_lines
from .confidence import AnswerConfidence
from .forest import TreeBag, TreeEnsemble
from .search import k_best
from .title import anchor_heading, headline_alternatives, page_headline
from .tokenize import WORD, TokenSequence, parse_html, tokenize

FORMAT = "sitewise-block-model"
#: Version 2 stores each member as a bag of ensembles, version 3 each member's weight in the average of
#: their log-odds; version-1 files (one ensemble per member, as self-training wrote before bags) and
#: version-2 files (members weighted equally) still load.
VERSION = 3
READABLE_VERSIONS = (1, 2, 3)

#: Boosting settings (scikit-learn's names). Depth is capped so the trees stay cheap to walk with numpy
#: (one step per level for all trees at once). Out of fold, 400 trees at a rate of 0.05 and leaves of 20
#: blocks each did not beat these on every set (docs/mss.md, "The boosting settings").
BOOSTING = {
    "max_iter": 200, "learning_rate": 0.1, "max_depth": 6, "max_leaf_nodes": 31, "min_samples_leaf": 50,
    "l2_regularization": 1.0, "max_features": 0.7,
}
#: Boosted models per fitted model, each with its own seed (``random_state + i``) and each split choosing
#: among a random ``max_features`` share of the features; their log-odds are averaged (:class:`TreeBag`).
#: One model's choices depend on its seed (five seeds alone scored dragnet from 0.852 to 0.865);
#: out of fold, three averaged gained on every set against one model of all features (docs/mss.md).
SEEDS = 3
#: A block adds to a run when P(article) exceeds this. Chosen out of fold on wcxb-dev together with the
#: two below, and checked on the sets training never sees (docs/bench-mss.md): 0.4 took in more of
#: listings and collections but more comment threads on older news pages.
THRESHOLD = 0.5
#: A maximal run besides the best joins the article when it is worth this share of the best run: forum
#: answers and product sections join the first post and the description; a stray teaser does not.
#: 0.0 (every positive run) and 1.0 (the best run alone) each lost on some set.
MIN_SEGMENT_SHARE = 0.1
#: Inside a kept run, a block stays only when P(article) is at least this: the runs decide the region,
#: and a share bar or an advertisement label the model is sure of leaves it even between paragraphs.
#: Out of fold on wcxb-dev and on every untouched set, F1 rose steadily from 0.0 to 0.4 (wcxb-dev
#: +0.005, dragnet +0.003, l3s-gn1 +0.002, CleanEval +0.001); above it wcxb-dev's listings lost.
MIN_BLOCK_PROBABILITY = 0.4
#: What a caller may favour (trafilatura's ``favor_precision`` and ``favor_recall``): the reading's settings
#: for each in place of the balanced ones above. Out of fold on wcxb-dev and readability's pages, with the
#: shipped trees on the sets training never sees (docs/mss.md, "Favouring precision or recall"):
#: "precision" (P 0.6 to add to a run, 0.5 to stay in one) raised mean word precision by 0.005–0.011 on
#: four sets (dragnet's 0.001) for 0.007–0.014 of recall; "recall" (0.4 and 0.3, and a run worth a
#: twentieth of the best joins it) raised recall by 0.006–0.013 for 0.009–0.018 of precision; F1 moved
#: by +0.001 to −0.007. Further (0.7 and 0.6; 0.3 and 0.2) cost up to 0.016 and 0.018 of F1.
FAVORED_READINGS: dict[str, dict[str, float]] = {
    "precision": {"threshold": 0.6, "min_block_probability": 0.5},
    "recall": {"threshold": 0.4, "min_block_probability": 0.3, "min_segment_share": 0.05},
}
#: What a reading favours: one of :data:`FAVORED_READINGS`, or None for the balanced one.
Favor = Optional[Literal["precision", "recall"]]


#: A second, relaxed reading of the page. Where the first reading keeps something but next to nothing
#: (at most :data:`MAX_SCANT_WORDS`) while the model finds much more of the page plausible (P at least
#: :data:`RELAXED_THRESHOLD`; the first reading keeps under :data:`MAX_SCANT_SHARE` of those words),
#: the page's main content is of a kind the model is unsure of — the cards of a collection or a listing,
#: which it ranks above the rest of the page but scores 0.05–0.45 — and the page is decoded again with
#: the relaxed threshold (as its in-run floor too). Out of fold (docs/mss.md, session 9): wcxb-dev
#: 0.8480 → 0.8580 (collections 0.538 → 0.605, listings 0.641 → 0.695, products 0.612 → 0.632), CleanEval
#: +0.0002, dragnet +0.0004, readability's pages and l3s-gn1 unchanged; a first reading of up to 300 words
#: cost l3s-gn1 and dragnet (article pages whose short story has a long comment thread), a threshold of
#: 0.3 gained less.
RELAXED_THRESHOLD = 0.2
MAX_SCANT_WORDS = 100
MAX_SCANT_SHARE = 0.35
#: On a page that reads as a section of its site rather than one item (:attr:`PageBlocks.section`: its URL
#: names no single item and it does not declare itself an article), a first reading of up to this many
#: words is scant too: a collection's or a listing's page often has a paragraph of introduction the model
#: is sure of above the cards it is not. Out of fold (docs/mss.md, session 11): wcxb-dev +0.0038
#: (collections 0.605 → 0.656, listings 0.695 → 0.705, products 0.631 → 0.626), CleanEval +0.0006,
#: readability's pages, l3s-gn1 and dragnet unchanged. On every page, it cost l3s-gn1 and dragnet the
#: teasers around their 100–240-word stories; 200 and 400 words gave 0.0029 and 0.0043.
MAX_SECTION_SCANT_WORDS = 300
#: The second reading's settings by attribute name, with their defaults: what a model file stores (a file
#: written before the second reading existed reads the defaults).
_RELAXED_READING = {"relaxed_threshold": RELAXED_THRESHOLD, "max_scant_words": MAX_SCANT_WORDS,
                    "max_scant_share": MAX_SCANT_SHARE, "max_section_scant_words": MAX_SECTION_SCANT_WORDS}
#: A page the first reading finds nothing on is read again as well, and what the relaxed reading finds is
#: kept only when it is at least this many words: a page without main content holds little the model
#: even finds plausible (a newsletter line, a footer), and such a page keeps its "no article". Out of fold:
#: CleanEval 0.9291 → 0.9301, every other set unchanged (20 words: CleanEval 0.9288; 100 or 200: as 50).
MIN_RELAXED_WORDS = 50
#: A block is in a comment thread when an element at most this many levels up (itself 0) has an id or
#: class of the comment kind (``comment``, ``disqus``, ``respond``, ``replies``): a comment's text sits in
#: its item, the item's body or the thread's list. Once a reading has kept a block outside any thread,
#: the thread blocks after it leave: an article's comments are not its text (wcxb-dev's annotators keep
#: 1.4 % of such words on articles, dragnet's 1.8 %, L3S-GN1's 1.7 %), while a forum page, whose posts
#: are its content, keeps them when its reading starts inside the thread. Out of fold (docs/mss.md,
#: session 10): dragnet 0.8609 → 0.8865, l3s-gn1 0.9249 → 0.9302, wcxb-dev +0.0007 (forums +0.003),
#: readability's pages unchanged; CleanEval, whose annotators keep comments, 0.9301 → 0.9269. Three
#: levels reached containers holding the posts of forums too (forums −0.010); one left most threads in.
COMMENT_THREAD_DEPTH = 2
#: Below a closing line ("Comments»", "12 Responses": :mod:`.boundaries`), a block is in a comment
#: thread when the comment-named element is up to this many levels up: blogs wrap each comment's text in
#: a body and a text element (``li.comment > div.comment-body > div > p``), so a thread whose items
#: are two levels deeper than :data:`COMMENT_THREAD_DEPTH` reaches stayed beside the article as a run of
#: its own. Not on a page that declares itself a forum (JSON-LD ``DiscussionForumPosting``, ``QAPage``:
#: the ``page_forum`` column): there the replies under "Comments" are the content. Out of fold, on four
#: draws of the trees (docs/mss.md, session 17): dragnet +0.0023 to +0.0041, l3s-gn1 +0.0000 to
#: +0.0002, every other set unchanged; 3 levels: the same on dragnet, L3S-GN1 lower on three draws; 6 or 8:
#: nothing more on dragnet, a forum or readability's pages lower.
CLOSED_THREAD_DEPTH = 4
#: A reading kept wholly inside comment threads, on a page whose title heading says it is one item of its
#: own (:attr:`PageBlocks.titled`), is a short post outweighed by its comments: the page is read again
#: without the thread's blocks, and that reading stands when it keeps at least this many words (an item
#: whose text is a title and a link, a Hacker News story's, keeps its thread). A forum's posts are seldom
#: named like comments: no forum page of wcxb-dev reads wholly inside a thread. Out of fold (docs/mss.md,
#: session 16), on four draws of the trees: dragnet +0.0025 to +0.0046 (a blog post of 16–107 words under
#: 1,700–5,900 words of comments, 0.02 → 0.90 for one), no page of any other set changed. Without the
#: title heading, CleanEval's page of reader comments under an untitled column lost 0.92; a reading 90 %
#: inside threads gained a dragnet page more but cost a CleanEval thread page (whose truth is its comments).
MIN_POST_WORDS = 50
#: A page may carry its text twice while a reader sees it once, and the text is then given once: a kept
#: block of at least this many words that repeats, word for word, another kept block leaves when
#:
#: * it is out of sight and the other is not (inside ``<noscript>``, hidden by attribute or inline style,
#:   in a container named hidden or classed :data:`HIDING_CLASSES`): a copy for readers without scripts,
#:   or a dialog's. Out of fold
#:   (docs/mss.md, session 11): wcxb-dev +0.0011, readability's pages +0.0046, dragnet +0.0017, l3s-gn1
#:   +0.0002, CleanEval unchanged; no page lost;
#: * or it is quoted (inside a ``<blockquote>``, up to :data:`QUOTE_DEPTH` levels) and the
#:   other is not: a forum reply quoting a post the page already gives. Out of fold: wcxb-dev +0.0011
#:   (forums 0.801 → 0.817), the others unchanged. Classes that name a quote were no better, and
#:   ``js-selectToQuote`` marks every post of XenForo's forums;
#: * or the copies are made for different screens (:data:`SCREEN_CLASS` names differ among their
#:   containers: ``desktop-only`` and ``mobile-only``, ``md:hidden`` and ``hidden md:block``): the first
#:   stays. Out of fold: wcxb-dev +0.0017 (50 pages gain, 10 lose), every other set unchanged.
#:
#: Copies that are both in sight for the same screens stay: a page that shows a passage twice shows it
#: twice, and CleanEval's and readability's annotators keep both (dropping every repeat cost them 0.0025
#: and 0.036).
MIN_COPY_WORDS = 4
#: A kept block a reader does not see (:attr:`PageBlocks.unseen`) leaves the reading when the reading's unseen
#: blocks hold under this share of its words: a collapsed menu, a tooltip, a screen-reader label between
#: the paragraphs (readability drops every hidden element). Where more of the reading is unseen, the page
#: hides its content until a script or a click shows it (wcxb-dev's tabs and accordions), and the reading
#: stays whole. Out of fold (docs/mss.md): 0.1 raised every set by 0.0001–0.0006; 0.2 and 0.3 raised the
#: others more but cost wcxb-dev 0.0003 (collections); dropping every unseen block cost wcxb-dev 0.09.
MAX_UNSEEN_SHARE = 0.1
#: How far up from a copy's element a quote is looked for: a quoted post's paragraphs sit in the quote's
#: body inside the quote element (XenForo's ``bbCodeBlock-expandContent`` in a ``blockquote``).
QUOTE_DEPTH = 6
#: Class names whose stylesheets hide the element (``display: none``): Bootstrap's and Foundation's
#: ``hide``. Names holding "hidden" are already unseen (the ``hidden`` name kind, a feature); "hide" is
#: matched whole, not as a part, since "hideout" or "hide-comments" say nothing of their element.
HIDING_CLASSES = frozenset({"hide"})
#: A class that shows or hides its element by screen size or condition: a device word as a part of the
#: name (``mobile-only``, ``hide-on-desktop``, ``singlePlan__mobileCopy``), Tailwind's and Bootstrap's
#: display utilities (``md:hidden``, ``max-lg:block``, ``d-md-none``, ``hidden-xs``, ``visible-lg``) and
#: conditional visibility (Webflow's ``w-condition-invisible``).
SCREEN_CLASS = re.compile(
    r"(?:^|[-_:])(?:[Mm]obile|[Dd]esktop|[Tt]ablet|[Pp]hone)s?(?:$|[-_:A-Z])"
    r"|^(?:\w+-)?(?:sm|md|lg|xl|xs|2xl):(?:hidden|block|flex|inline|grid)$"
    r"|^d-(?:\w+-)?none$|^(?:hidden|visible|show|hide)-(?:for-)?(?:xs|sm|md|lg|xl|small|medium|large)"
    r"|invisible"
)
#: Framer's server-rendered breakpoint variants: an element classed this holds one breakpoint's copy of
#: a section, and its ``hidden-<hash>`` classes (``hidden-12t0irv``) name the breakpoints that hide it,
#: so those are screen classes too, however far above a copy the variant sits (wcxb-dev/0355 and 2846
#: carried every section two or three times).
FRAMER_VARIANT = "ssr-variant"
#: ... looked for on a copy's element and its ancestors up to this many levels (a responsive copy's
#: wrapper is often a few levels above its paragraphs; 4 levels found 80 % of what 8 did).
SCREEN_CLASS_DEPTH = 8
#: An article does not begin or end with a list of links. The kept blocks at either end of a reading that
#: are link lines (at least this share of their text in links: a menu, a category or tag list, a
#: blogroll, a "related" list beside a short story) leave, one after another from the edge inward, up to
#: the first block that is not one; a heading stays (a post's title links to the post) ...
EDGE_LINK_SHARE = 0.8
#: ... unless the kept text is mostly links (at least this share of its words): a listing's or a
#: collection's cards are links, and there the links are the content. Out of fold (docs/mss.md, session
#: 12): readability's pages +0.0029, l3s-gn1 +0.0025, dragnet +0.0042 (the sidebars read before 47hats'
#: stories, a "Categories" list), wcxb-dev +0.0003, CleanEval +0.0002; the same sign on each of three
#: seeds' models but CleanEval's (−0.0004, +0.0003, −0.0004). With no such limit listings lose (wcxb-dev
#: −0.0015, CleanEval −0.0041); limits of 0.6 and 0.7 gain a third as much on dragnet, 0.9 costs CleanEval.
#: What the annotators keep of such lines (hacknmod's "related hacks", linked teasers on a portal)
#: leaves with them.
MAX_LINKED_SHARE = 0.8


class BlockModel:
    """P(article) per block from :func:`~sitewise.mss.blocks.block_features` rows.

    Learned attributes: ``members_`` (one or more bags of tree ensembles whose log-odds are averaged: a
    shipped model, or a shipped model joined by one self-trained on learned sites), ``member_weights_``
    (each member's weight in that average), ``feature_names_``, ``info_`` (what it was trained on) and
    ``confidence_`` (the :class:`~sitewise.mss.confidence.AnswerConfidence` fitted on its out-of-fold
    readings, which training adds when asked; None without).
    """

    def __init__(self, threshold: float = THRESHOLD, min_segment_share: float = MIN_SEGMENT_SHARE,
                 min_block_probability: float = MIN_BLOCK_PROBABILITY, random_state: int = 0, seeds: int = SEEDS,
                 *, relaxed_threshold: float = RELAXED_THRESHOLD, max_scant_words: float = MAX_SCANT_WORDS,
                 max_scant_share: float = MAX_SCANT_SHARE, max_section_scant_words: float = MAX_SECTION_SCANT_WORDS,
                 **boosting: Any):
        unknown = set(boosting) - set(BOOSTING)
        if unknown:
            raise ValueError(f"unknown boosting option(s): {', '.join(sorted(unknown))}")
        self.threshold = threshold
        self.min_segment_share = min_segment_share
        self.min_block_probability = min_block_probability
        # floats, as a model file gives them back: a saved model and a reloaded one write the same bytes
        self.relaxed_threshold = float(relaxed_threshold)
        self.max_scant_words = float(max_scant_words)
        self.max_scant_share = float(max_scant_share)
        self.max_section_scant_words = float(max_section_scant_words)
        if seeds < 1:
            raise ValueError("seeds must be at least 1")
        self.random_state = random_state
        self.seeds = seeds
        self.boosting = {**BOOSTING, **boosting}

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> "BlockModel":
        """Fit on block rows ``X`` (columns :data:`FEATURE_NAMES`) labelled ``y`` (True = article)."""
        from sklearn.ensemble import HistGradientBoostingClassifier

        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=bool)
        if X.ndim != 2 or X.shape[1] != len(FEATURE_NAMES):
            raise ValueError(f"expected rows of {len(FEATURE_NAMES)} features, got shape {X.shape}")
        if y.size != len(X) or y.all() or not y.any():
            raise ValueError("training needs blocks labelled both in and out, one label per row")
        ensembles = []
        for seed in range(self.random_state, self.random_state + self.seeds):
            classifier = HistGradientBoostingClassifier(**self.boosting, early_stopping=False, random_state=seed)
            ensembles.append(TreeEnsemble.from_sklearn(classifier.fit(X, y, sample_weight=sample_weight)))
        self.members_ = [TreeBag(tuple(ensembles))]
        self.member_weights_ = [1.0]
        self.feature_names_ = FEATURE_NAMES
        self.info_: dict[str, Any] = {"blocks": int(len(X)), "blocks_in": int(y.sum())}
        self.confidence_: AnswerConfidence | None = None
        return self

    def joined(self, other: "BlockModel") -> "BlockModel":
        """A model whose log-odds average this one's and ``other``'s (self-training's candidate), each
        weighted by the pages it learned from (``info_["used"]``; equally when either does not say):
        every page counts once, so a few hundred rule-labelled pages of learned sites add their layouts
        without outvoting the thousands of pages of every kind the shipped model learned from (weighted
        equally, 167 pages of 37 learned sites cost CleanEval's never-learned sites 0.016 of F1:
        docs/mss.md, "Self-training")."""
        joined = BlockModel(self.threshold, self.min_segment_share, self.min_block_probability,
                            self.random_state, self.seeds, **self._relaxed_reading(), **self.boosting)
        pages = [model.info_.get("used") for model in (self, other)]
        if not all(isinstance(count, int) and count > 0 for count in pages):
            pages = [1, 1]
        joined.members_ = [*self.members_, *other.members_]
        joined.member_weights_ = [*self._weights_summing_to(pages[0]), *other._weights_summing_to(pages[1])]
        joined.feature_names_ = self.feature_names_
        joined.info_ = {"joined": [self.info_, other.info_]}
        # (the estimate was fitted to this model's readings; the joined trees read much as it does)
        joined.confidence_ = self.confidence_
        return joined

    def favoring(self, favor: Favor) -> "BlockModel":
        """This model reading as ``favor`` asks (:data:`FAVORED_READINGS`): the same trees and estimate
        with other decoding settings; itself for None."""
        if favor is None:
            return self
        if favor not in FAVORED_READINGS:
            raise ValueError(f"favor must be one of {', '.join(FAVORED_READINGS)} or None, not {favor!r}")
        favored = copy.copy(self)
        for name, value in FAVORED_READINGS[favor].items():
            setattr(favored, name, value)
        return favored

    def _weights_summing_to(self, total: float) -> list[float]:
        """The members' weights scaled to sum to ``total``."""
        scale = total / sum(self.member_weights_)
        return [weight * scale for weight in self.member_weights_]

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return np.average([member.decision_function(X) for member in self.members_], axis=0,
                          weights=self.member_weights_)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """P(article) per row (one column: the positive class)."""
        if not len(X):
            return np.zeros(0)
        return 1.0 / (1.0 + np.exp(-self.decision_function(X)))

    def block_scores(self, probabilities: np.ndarray, words: np.ndarray, threshold: float | None = None) -> np.ndarray:
        """What each block adds to a run: ``(P(article) − threshold) × its words`` (at least one)."""
        return (probabilities - (self.threshold if threshold is None else threshold)) * np.maximum(words, 1)

    def select(self, probabilities: np.ndarray, words: np.ndarray, boundaries: np.ndarray | None = None,
               comments: np.ndarray | None = None, *, section: bool = False, titled: bool = False) -> np.ndarray:
        """Which blocks are the article: the maximal runs of ``(P − threshold) × words`` worth at least
        :attr:`min_segment_share` of the best one, less their blocks under :attr:`min_block_probability`.
        No run crosses a ``boundaries`` block (a line that
        opens the comments or the related stories), as in the token pipeline: what follows one joins only
        as a run of its own, worth enough beside the article. Where that keeps next to nothing of a page
        the model finds much more of plausible, the page is read again at :attr:`relaxed_threshold`
        (:data:`RELAXED_THRESHOLD`); a page it kept nothing of keeps the second reading only when that
        finds :data:`MIN_RELAXED_WORDS` words; on a ``section`` page (:attr:`PageBlocks.section`) a first reading of
        up to :attr:`max_section_scant_words` counts as next to nothing. ``comments``: which blocks are in a
        comment thread; those after the first kept block outside one leave (:data:`COMMENT_THREAD_DEPTH`), and
        a reading wholly inside them on a ``titled`` page gives way to the post they outweighed
        (:data:`MIN_POST_WORDS`)."""
        keep = self._reading(probabilities, words, boundaries, section)
        if comments is None:
            return keep
        if titled and keep.any() and comments[keep].all():
            post = self._reading(np.where(comments, 0.0, probabilities), words, boundaries, section)
            if words[post].sum() >= MIN_POST_WORDS:
                keep = post
        return keep & ~thread_after_article(keep, comments)

    def _reading(self, probabilities: np.ndarray, words: np.ndarray, boundaries: np.ndarray | None,
                 section: bool) -> np.ndarray:
        """The first reading, or the relaxed one where the first keeps next to nothing (:meth:`select`)."""
        keep = self._runs(probabilities, words, boundaries, self.threshold, self.min_block_probability)
        kept = words[keep].sum()
        # (the plausible words are counted only when the reading is scant)
        scant = kept <= (self.max_section_scant_words if section else self.max_scant_words)
        if scant and kept < self.max_scant_share * words[probabilities >= self.relaxed_threshold].sum():
            floor = min(self.min_block_probability, self.relaxed_threshold)
            relaxed = self._runs(probabilities, words, boundaries, self.relaxed_threshold, floor)
            if kept or words[relaxed].sum() >= MIN_RELAXED_WORDS:
                keep = relaxed
        return keep

    def _runs(self, probabilities: np.ndarray, words: np.ndarray, boundaries: np.ndarray | None,
              threshold: float, floor: float) -> np.ndarray:
        """The blocks of the runs worth keeping at ``threshold``, less those under ``floor``."""
        keep = np.zeros(probabilities.size, dtype=bool)
        scores = self.block_scores(probabilities, words, threshold)
        if boundaries is not None:
            scores = np.where(boundaries, BOUNDARY_SCORE, scores)
        runs = k_best(scores, probabilities.size)
        if runs:
            least = self.min_segment_share * runs[0].value
            for run in runs:
                if run.value >= least:
                    keep[run.start : run.end] = True
        return keep & (probabilities >= floor)

    def _relaxed_reading(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in _RELAXED_READING}

    # -- persistence -----------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        document = {
            "format": FORMAT, "version": VERSION, "features": list(self.feature_names_),
            "threshold": self.threshold, "min_segment_share": self.min_segment_share,
            "min_block_probability": self.min_block_probability, **self._relaxed_reading(),
            "members": [member.to_dict() for member in self.members_], "member_weights": self.member_weights_,
            "info": self.info_,
        }
        if self.confidence_ is not None:
            document["confidence"] = self.confidence_.to_dict()
        return document

    @classmethod
    def from_dict(cls, document: dict[str, Any]) -> "BlockModel":
        if document.get("format") != FORMAT or document.get("version") not in READABLE_VERSIONS:
            raise ValueError(f"not a {FORMAT} document of version {' or '.join(map(str, READABLE_VERSIONS))}")
        if tuple(document["features"]) != FEATURE_NAMES:
            raise ValueError("the model was trained on other block features than this sitewise computes")
        relaxed = {name: float(document.get(name, default)) for name, default in _RELAXED_READING.items()}
        model = cls(float(document["threshold"]), float(document["min_segment_share"]),
                    float(document.get("min_block_probability", 0.0)), **relaxed)
        if document["version"] == 1:
            model.members_ = [TreeBag((TreeEnsemble.from_dict(data),)) for data in document["ensembles"]]
        else:
            model.members_ = [TreeBag.from_dict(data) for data in document["members"]]
        if not model.members_ or any(m.n_features != len(FEATURE_NAMES) for m in model.members_):
            raise ValueError("the model holds no trees over the block features")
        # (versions before 3 averaged their members equally)
        weights = document.get("member_weights", [1.0] * len(model.members_))
        if len(weights) != len(model.members_) or not all(isinstance(w, (int, float)) and w > 0 for w in weights):
            raise ValueError("member_weights must be one positive number per member")
        model.member_weights_ = [float(w) for w in weights]
        model.feature_names_ = FEATURE_NAMES
        model.info_ = dict(document.get("info") or {})
        model.confidence_ = AnswerConfidence.from_dict(document["confidence"]) if "confidence" in document else None
        return model

    def save(self, path: str | Path) -> Path:
        return write_model_file(path, self.to_dict())


def write_model_file(path: str | Path, document: dict[str, Any]) -> Path:
    """Write a model document atomically (a reader never sees half a file) as gzip-compressed JSON
    (never pickle: a model file may come from elsewhere and must not be able to run code); the same
    document gives the same bytes (no time stamp in the gzip header)."""
    path = Path(path)
    data = gzip.compress(json.dumps(document, ensure_ascii=False).encode("utf-8"), compresslevel=9, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())  # on disk before the rename: a crash leaves the old file or the new one
        os.chmod(handle.name, 0o644)  # a model is not a secret; the temporary file was created 0600
        os.replace(handle.name, path)
    except BaseException:
        os.unlink(handle.name)  # (a full disk, a folder at ``path``: no stray copy left beside it)
        raise
    return path


@functools.lru_cache(maxsize=MAX_CACHED_NAMES)  # (class strings: sites repeat them)
def _screen_names(classes: str) -> tuple[str, ...]:
    """The :data:`SCREEN_CLASS` names of an element's class attribute, and its breakpoint names."""
    return tuple(name for name in classes.split() if SCREEN_CLASS.search(name)) + _breakpoint_names(classes)


@functools.lru_cache(maxsize=MAX_CACHED_NAMES)
def _breakpoint_names(classes: str) -> tuple[str, ...]:
    """The ``hidden-`` names of a :data:`FRAMER_VARIANT`'s class attribute (none for other elements)."""
    names = classes.split()
    return tuple(name for name in names if name.startswith("hidden-")) if FRAMER_VARIANT in names else ()


def _mark_apart_copies(copies: np.ndarray, group: np.ndarray, apart: np.ndarray) -> np.ndarray:
    """Mark as copies the blocks of ``group`` that are ``apart`` (out of sight, quoted) when some of the
    group are not; the mask of the group's blocks that stay."""
    if apart.any() and not apart.all():
        copies[group[apart]] = True
        return ~apart
    return np.ones(group.size, dtype=bool)


def _screen_classes(ancestry: list[Any]) -> frozenset[str]:
    """The :data:`SCREEN_CLASS` names on a block's element and its ancestors (:data:`SCREEN_CLASS_DEPTH`),
    and the breakpoint names of any :data:`FRAMER_VARIANT` above it (a variant wraps a whole section)."""
    names = set()
    for depth, element in enumerate(ancestry):
        read = _screen_names if depth < SCREEN_CLASS_DEPTH else _breakpoint_names
        names.update(read(element.get("class") or ""))
    return frozenset(names)


def _hidden_by_class(ancestry: list[Any]) -> bool:
    """Whether a block or an ancestor carries a :data:`HIDING_CLASSES` name."""
    return any(_hides(element.get("class") or "") for element in ancestry)


@functools.lru_cache(maxsize=MAX_CACHED_NAMES)  # (class strings, read once each, as for the screen names)
def _hides(classes: str) -> bool:
    """Whether an element's class attribute holds a :data:`HIDING_CLASSES` name."""
    return not HIDING_CLASSES.isdisjoint(classes.split())


def _quoted(ancestry: list[Any]) -> bool:
    """Whether a block is inside a ``<blockquote>`` (:data:`QUOTE_DEPTH`)."""
    return any(element.tag == "blockquote" for element in ancestry[:QUOTE_DEPTH])


def linked_edges(keep: np.ndarray, words: np.ndarray, link_share: np.ndarray, headings: np.ndarray) -> np.ndarray:
    """The ``keep`` blocks at either end of the reading that are link lines, not headings, where the
    kept text is mostly not links (:data:`EDGE_LINK_SHARE`, :data:`MAX_LINKED_SHARE`; a block's words
    count as linked by its ``link_share``, the share of its characters inside links)."""
    edges = np.zeros(keep.size, dtype=bool)
    rows = np.flatnonzero(keep)
    kept_words = words[rows]
    if (kept_words * link_share[rows]).sum() >= MAX_LINKED_SHARE * kept_words.sum():
        return edges
    stays = np.flatnonzero((link_share[rows] <= EDGE_LINK_SHARE) | headings[rows])
    if not stays.size:
        edges[rows] = True
    else:
        edges[rows[: stays[0]]] = True
        edges[rows[stays[-1] + 1 :]] = True
    return edges


def after_thread_heading(boundaries: np.ndarray, headings: np.ndarray, comment_depths: np.ndarray) -> np.ndarray:
    """The blocks from the first closing line (``boundaries``) that is a heading named like comments itself
    (``<h2 id="comments">Comments</h2>``: depth 0 in ``comment_depths``) on, that heading included.

    Such a heading opens the thread whatever follows it is named: Movable Type's themes give each comment
    a numbered id (``<div id="c169900">``) and a "Posted by" line beside it, so the only
    comment-named element is the heading, and a thread of such comments worth a tenth of the article
    joined it as a run of its own (dragnet/R187: F1 0.05). The sidebar and footer after the thread are
    taken with it, and leave with it: they come after the article too. A heading, not a link: a
    "12 Comments" link above the story opens nothing. With the shipped trees (``sitewise eval --extractor
    mss`` on each set, docs/mss.md, session 30): dragnet 0.8968 → 0.9039 (five pages up, none down),
    CleanEval 0.9273 → 0.9264 (one page, whose truth keeps its comments), L3S-GN1, wcxb-dev and
    readability's pages unchanged, out of fold too."""
    return np.logical_or.accumulate(boundaries & headings & (comment_depths == 0))


def thread_after_article(keep: np.ndarray, comments: np.ndarray) -> np.ndarray:
    """The ``comments`` blocks after the first ``keep`` block outside a comment thread (none when every
    kept block is in one: a forum thread)."""
    outside = np.flatnonzero(keep & ~comments)
    after = np.zeros(keep.size, dtype=bool)
    if outside.size:
        after[outside[0] + 1 :] = True
    return comments & after


# -- pages to blocks ------------------------------------------------------------------------------------


_WORDS_COLUMN = FEATURE_NAMES.index("words")
_CHARS_COLUMN = FEATURE_NAMES.index("chars")
_BLOCKQUOTE_COLUMN = FEATURE_NAMES.index("in_blockquote")
_COMMENT_COLUMN = FEATURE_NAMES.index("name_comment")
_TITLE_COLUMN = FEATURE_NAMES.index("is_title")
_FORUM_COLUMN = FEATURE_NAMES.index("page_forum")
_LINK_SHARE_COLUMN = FEATURE_NAMES.index("link_share")
#: A block is a section's heading when its element is one or it sits in one.
_SECTION_HEADING_COLUMNS = [FEATURE_NAMES.index(name) for name in
                            ("tag_h1", "tag_h2", "tag_h3", "tag_h4", "tag_h5", "tag_h6", "in_h1", "in_h2", "in_h3")]
_UNSEEN_FLAG_COLUMNS = [FEATURE_NAMES.index("in_noscript")]
_UNSEEN_DISTANCE_COLUMNS = [FEATURE_NAMES.index("name_hidden"), FEATURE_NAMES.index("hidden_attr")]


@dataclass
class PageBlocks:
    """A page as the block model sees it."""

    tokens: TokenSequence
    #: Output line number of each block, in document order.
    lines: np.ndarray
    #: One row of :data:`FEATURE_NAMES` per block.
    features: np.ndarray
    #: Whether the page reads as a section of its site rather than one item (:func:`~.blocks.reads_as_section`).
    section: bool = False

    @functools.cached_property  # (read by the reading and the thread test of one page)
    def boundaries(self) -> np.ndarray:
        """Whether each block is a line that opens what follows an article (:func:`.boundaries.closing_lines`,
        measured in words: the features' ``is_closing_line`` counts punctuation too, as the trees learnt it)."""
        found = np.zeros(self.lines.size, dtype=bool)
        found[np.searchsorted(self.lines, self.tokens.lines[closing_lines(self.tokens)])] = True
        return found

    @property
    def comments(self) -> np.ndarray:
        """Whether each block is in a comment thread (:data:`COMMENT_THREAD_DEPTH`, and on a page that
        declares no forum, below a closing line :data:`CLOSED_THREAD_DEPTH`, and every block after a closing
        heading named like comments: :func:`after_thread_heading`)."""
        depths = self.features[:, _COMMENT_COLUMN]
        thread = depths <= COMMENT_THREAD_DEPTH
        if depths.size and not self.features[0, _FORUM_COLUMN]:  # (a page-wide column)
            boundaries = self.boundaries
            below_closing = np.logical_or.accumulate(boundaries)  # from the first closing line on
            thread |= below_closing & (depths <= CLOSED_THREAD_DEPTH)
            thread |= after_thread_heading(boundaries, self.section_headings, depths)
        return thread

    @property
    def section_headings(self) -> np.ndarray:
        """Whether each block is a section's heading: its element is one (``<h1>``–``<h6>``) or it sits in one."""
        return (self.features[:, _SECTION_HEADING_COLUMNS] > 0).any(axis=1)

    @property
    def titled(self) -> bool:
        """Whether the page has a title heading (the heading that repeats its headline: :mod:`.title`)."""
        return bool(self.features[:, _TITLE_COLUMN].any())

    @functools.cached_property  # (read by the selection, the edge and the copy tests of one page)
    def words(self) -> np.ndarray:
        """Words (alphanumeric tokens) per block: the ``words`` feature, which holds their log1p."""
        return np.rint(np.expm1(self.features[:, _WORDS_COLUMN]))

    def linked_edges(self, keep: np.ndarray) -> np.ndarray:
        """The link lines at the edges of the ``keep`` blocks that leave (:func:`linked_edges`)."""
        features = self.features
        headings = self.section_headings | (features[:, _TITLE_COLUMN] > 0)  # (a heading or the title)
        return linked_edges(keep, self.words, features[:, _LINK_SHARE_COLUMN], headings)

    @property
    def unseen(self) -> np.ndarray:
        """Whether each block is where a reader does not see it: inside ``<noscript>`` (a browser runs the
        scripts), or under an element hidden by attribute or inline style or named hidden (``sr-only``)."""
        features = self.features
        flagged = (features[:, _UNSEEN_FLAG_COLUMNS] > 0).any(axis=1)
        return flagged | (features[:, _UNSEEN_DISTANCE_COLUMNS] < FAR).any(axis=1)

    def unseen_few(self, keep: np.ndarray) -> np.ndarray:
        """The ``keep`` blocks out of a reader's sight, when they hold under :data:`MAX_UNSEEN_SHARE` of the kept
        words (else none)."""
        unseen = keep & self.unseen
        if unseen.any():
            words = self.words
            if words[unseen].sum() >= MAX_UNSEEN_SHARE * words[keep].sum():
                unseen[:] = False
        return unseen

    def block_texts(self, rows: np.ndarray) -> list[tuple[str, ...]]:
        """The words and symbols of each of the blocks ``rows``, lower-cased: their text word for word,
        case and spacing aside."""
        tokens = self.tokens
        wanted = self.lines[rows]
        # a block's tokens are one stretch: output lines are numbered in document order
        starts = np.searchsorted(tokens.lines, wanted, "left").tolist()
        ends = np.searchsorted(tokens.lines, wanted, "right").tolist()
        words, is_word = tokens.words, (tokens.kinds == WORD).tolist()
        return [tuple(words[i].lower() for i in range(start, end) if is_word[i]) for start, end in zip(starts, ends)]

    def copies(self, keep: np.ndarray) -> np.ndarray:
        """The ``keep`` blocks that repeat another kept block where a reader sees only one of them or the page
        gives it once: out of sight beside a copy in sight, quoted beside the original, or made for another
        screen than the first copy (:data:`MIN_COPY_WORDS`)."""
        copies = np.zeros(keep.size, dtype=bool)
        groups = self._repeats(keep)
        if not groups:
            return copies
        unseen = self.unseen
        below_quote = self.features[:, _BLOCKQUOTE_COLUMN] > 0  # (any blockquote above: then look how near)
        for group in groups:
            ancestries = {row: self._ancestry(row) for row in group.tolist()}
            hidden = np.array([unseen[row] or _hidden_by_class(ancestries[row]) for row in group.tolist()])
            group = group[_mark_apart_copies(copies, group, hidden)]
            quoted = np.array([bool(below_quote[row]) and _quoted(ancestries[row]) for row in group.tolist()])
            group = group[_mark_apart_copies(copies, group, quoted)]
            if len(group) > 1 and len({_screen_classes(ancestries[row]) for row in group.tolist()}) > 1:
                copies[group[1:]] = True
        return copies

    def _repeats(self, keep: np.ndarray) -> list[np.ndarray]:
        """Groups (rows in document order) of kept blocks of :data:`MIN_COPY_WORDS` words or more with the
        same text. Only blocks whose word and character counts recur are read: most pages have none."""
        rows = np.flatnonzero(keep & (self.words >= MIN_COPY_WORDS))
        if rows.size < 2:
            return []
        # one number per block for its word and character counts (the features hold their log1p)
        sizes = self.features[rows, _WORDS_COLUMN] * 1e6 + self.features[rows, _CHARS_COLUMN]
        _, inverse, counts = np.unique(sizes, return_inverse=True, return_counts=True)
        candidates = rows[counts[inverse] > 1]
        if not candidates.size:
            return []
        groups: dict[tuple[str, ...], list[int]] = {}
        for row, text in zip(candidates.tolist(), self.block_texts(candidates)):
            groups.setdefault(text, []).append(row)
        return [np.array(group) for group in groups.values() if len(group) > 1]

    def _ancestry(self, row: int) -> list[Any]:
        """A block's element and its ancestors, nearest first, up to the root."""
        element = self.tokens.line_owners.get(int(self.lines[row]))
        chain = []
        while element is not None:
            chain.append(element)
            element = element.getparent()
        return chain

    def text(self, keep: np.ndarray) -> str:
        """The text of the kept blocks, one block per line."""
        tokens = self.tokens
        kept_lines = np.zeros(int(tokens.lines.max()) + 1 if len(tokens) else 1, dtype=bool)
        kept_lines[self.lines[keep]] = True
        return tokens.text(0, len(tokens), kept_lines[tokens.lines])


def page_blocks(html: str | bytes, url: str | None = None) -> PageBlocks:
    """Parse a page and describe its blocks (no blocks when there is nothing to parse)."""
    root = parse_html(html)
    if root is None:
        tokens = tokenize(None)
        return PageBlocks(tokens, np.zeros(0, dtype=np.int64), np.zeros((0, len(FEATURE_NAMES))))
    signals = page_signals(root, url)
    headline = page_headline(root)
    heading, _ = anchor_heading(root, headline, headline_alternatives(root, headline))
    # No clean-up by rule: hidden elements, navigation and named furniture are features the model weighs
    # (server-rendered pages hide their content until scripts run; a product page's "related" names can
    # hold its specifications).
    tokens = tokenize(root, heading)
    lines, features = block_features(tokens, signals)
    return PageBlocks(tokens, lines, features, reads_as_section(signals))


