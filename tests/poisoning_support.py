"""Helpers for the poisoning tests: uploads from an address, the learn worker in process, decoy pages and
the readers' measure (word F1 of the served rules on articles nobody uploaded)."""
from __future__ import annotations

import dataclasses
import random

from rq import SimpleWorker

from learn_support import sample_pages
from sitewise.learn.rules import apply_rules
from sitewise.metrics import word_prf
from sitewise.page import Page
from sitewise.sample_site import generate_site
from sitewise.worker.queue import JOB_SERIALIZER, learn_queue


def site_articles(uploaded: int, held_out: int) -> tuple[list, list]:
    """(page, sample) pairs of the generated news site (seed 7): ``uploaded`` for the readers, then
    ``held_out`` nobody uploads, to score the rules on."""
    pages = sample_pages(generate_site(seed=7, stories=uploaded + held_out, features=0))
    stories = [(page, sample) for page, sample in pages.values() if sample.article]
    return stories[:uploaded], stories[uploaded:]


def upload(client, page: Page, address: str) -> int:
    """POST the page from ``address``; the status."""
    return client.post("/api/pages", json=page.to_dict(), environ_base={"REMOTE_ADDR": address}).status_code


def learn(store) -> None:
    """Run every queued learn job (the worker keeping up)."""
    SimpleWorker([learn_queue(store.redis)], connection=store.redis, serializer=JOB_SERIALIZER).work(burst=True)


def held_out_f1(rules, held_out) -> float:
    """Mean word F1 of ``rules`` on (page, sample) pairs (a page the rules do not fit confidently: 0)."""
    scores = []
    for page, sample in held_out:
        found = apply_rules(rules, page=page)
        scores.append(word_prf(found.text, sample.truth).f1 if found.confident else 0.0)
    return sum(scores) / len(scores)


def decoy_page(template: Page, rng: random.Random, url: str, canonical_url: str | None = None) -> Page:
    """Junk aimed at the rules: the site's own layout, the article body reduced to link-like scraps and
    long text that matches the title placed in the comments, so a learner would pick the comments."""
    title_words = template.titles[0].split() if template.titles else ["story"]
    blocks = []
    for block in template.blocks:
        if "story-body" in block.selector:
            text = rng.choice(["Click here", "Read more", "Subscribe"])
        elif "comments" in block.selector and block.tag == "p":
            text = " ".join(rng.choice(title_words + ["the", "of", "and"]) for _ in range(120))
        else:
            text = block.text
        blocks.append(dataclasses.replace(block, text=text))
    return Page(url=url, canonical_url=canonical_url, blocks=blocks, titles=template.titles, collector="bookmarklet")
