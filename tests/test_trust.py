"""sitewise.trust and the store's side of it: marks by distinct contributors, judging a rule change,
corroborated rules, pages owned per contributor, and a cap that keeps the pages that taught the rules."""
from __future__ import annotations

import dataclasses

import pytest

from learn_support import sample_pages
from sitewise.learn.learner import SiteLearner
from sitewise.learn.site import learn_stored_site
from sitewise.page import Block, Box, Page
from sitewise.pipeline import rule_labelled_pages
from sitewise.sample_site import generate_site
from sitewise.trust import AgreementPolicy, Support, agreed_marks, judge_change, rules_corroborated

SITE = "gazette.test"
DAY = 86_400.0
NO_SPAN = AgreementPolicy(min_contributors=3, min_span_s=0)


@pytest.fixture(scope="module")
def stories():
    pages = sample_pages(generate_site(seed=7, stories=12, features=0))
    return [page for page, sample in pages.values() if sample.article]


def comments_as_article(page: Page, signed: str = "") -> Page:
    """The page with its body cut to scraps and long title-matching text in its comments (ending in
    ``signed``: copies the learner does not take for one page)."""
    words = (page.titles[0] if page.titles else "story").split() + ([signed] if signed else [])
    blocks = [
        dataclasses.replace(b, text="Read more") if "story-body" in b.selector
        else dataclasses.replace(b, text=" ".join(words * 30)) if "comments" in b.selector and b.tag == "p" else b
        for b in page.blocks
    ]
    return dataclasses.replace(page, url=page.url.replace(".html", "-x.html"), blocks=blocks)


def mark(contributor: str | None, kind: str = "not_article", selector: str = "main > p.x", url: str = "http://a.test/1"):
    return {"url": url, "kind": kind, "selector": selector, "text": "", "contributor": contributor}


# -- marks -------------------------------------------------------------------------------------------


def test_a_mark_counts_only_when_enough_contributors_agree():
    flood = [mark("one")] * 40 + [mark("one", url=f"http://a.test/{n}") for n in range(10)]
    assert agreed_marks(flood) == []
    agreeing = [mark(name) for name in ("a", "b", "c")]
    assert agreed_marks(agreeing) == agreeing
    # As many say the opposite: no verdict either way.
    disputed = agreeing + [mark(name, kind="missing") for name in ("d", "e", "f")]
    assert agreed_marks(disputed) == []
    # The operator's marks always count; repeats of one contributor's mark on one page count once.
    assert agreed_marks([mark(None), mark(None)]) == [mark(None)]


# -- judging a change --------------------------------------------------------------------------------


def test_a_change_that_moves_the_region_on_earlier_pages_is_held(stories):
    readers, decoys = stories[:6], [comments_as_article(p) for p in stories[6:]]
    current = SiteLearner().fit(readers).rules_
    poisoned = SiteLearner().fit(decoys).rules_
    owners = {p.key: f"reader-{n}" for n, p in enumerate(readers)} | {p.key: f"bot-{n}" for n, p in enumerate(decoys)}
    stored_at = {p.key: 0.0 for p in readers} | {p.key: 10 * DAY for p in decoys}
    verdict = judge_change(current, poisoned, readers + decoys, owners, stored_at, current_since=1.0, policy=NO_SPAN)
    assert verdict.decision == "hold" and verdict.earlier_agreement < 0.5
    # The same rules again move nothing: stored.
    same = judge_change(current, SiteLearner().fit(readers).rules_, readers, owners, stored_at, 1.0, policy=NO_SPAN)
    assert same.decision == "store" and same.moved_pages == 0


def test_a_change_on_newer_pages_waits_for_independent_contributors_over_time(stories):
    readers, newer = stories[:6], [comments_as_article(p) for p in stories[6:9]]
    current = SiteLearner().fit(readers).rules_
    changed = SiteLearner().fit(newer).rules_

    def verdict(owners, times, policy):
        # No page is older than the current rules: the change rests on who sent the newer pages.
        return judge_change(current, changed, newer, owners, times, current_since=0.0, policy=policy).decision

    one = {p.key: "bot" for p in newer}
    three = {p.key: f"reader-{n}" for n, p in enumerate(newer)}
    burst = {p.key: 100.0 + n for n, p in enumerate(newer)}
    spread = {p.key: 100.0 + n * DAY for n, p in enumerate(newer)}
    assert verdict(one, spread, AgreementPolicy()) == "wait"  # one contributor, however long
    assert verdict(three, burst, AgreementPolicy()) == "wait"  # three addresses in one burst
    assert verdict(three, spread, AgreementPolicy()) == "store"  # three contributors over two days
    assert verdict({}, burst, AgreementPolicy()) == "store"  # the operator's pages


def test_support_agrees_by_contributors_and_span():
    policy = AgreementPolicy(min_contributors=3, min_span_s=DAY)
    assert not Support(2, False, 2 * DAY).agrees(policy)
    assert not Support(3, False, DAY - 1).agrees(policy)
    assert Support(3, False, DAY).agrees(policy) and Support(0, True, 0).agrees(policy)


# -- learning a stored site ---------------------------------------------------------------------------


def test_corroborated_rules_need_several_contributors_over_time_or_the_operator(store, stories):
    for n, page in enumerate(stories[:5]):
        store.put_page(page, contributor=f"reader-{n}", now=1000.0 + n * 3600)
    assert learn_stored_site(store, SITE, policy=NO_SPAN).stored
    assert rules_corroborated(store, SITE, NO_SPAN)
    assert not rules_corroborated(store, SITE, AgreementPolicy(min_contributors=3, min_span_s=DAY))  # 4 h
    assert not rules_corroborated(store, SITE, AgreementPolicy(min_contributors=6, min_span_s=0))
    assert not rules_corroborated(store, "unknown.test", NO_SPAN)
    # Self-training's pages (the sample pages carry their HTML): never a reader's HTML, only the operator's
    # pages, and only of corroborated sites.
    assert list(rule_labelled_pages(store, NO_SPAN)) == []
    store.put_page(stories[5])  # the operator's page: trusted
    assert [url for _, _, url in rule_labelled_pages(store, NO_SPAN)] == [stories[5].url]
    assert list(rule_labelled_pages(store, AgreementPolicy())) == []  # the rules are not corroborated
    assert learn_stored_site(store, SITE, policy=AgreementPolicy(), force=True).stored
    assert rules_corroborated(store, SITE, AgreementPolicy())
    assert [url for _, _, url in rule_labelled_pages(store, AgreementPolicy())] == [stories[5].url]


def test_held_rules_wait_for_the_administrator(store, stories):
    for n, page in enumerate(stories[:6]):
        store.put_page(page, contributor=f"reader-{n}")
    assert learn_stored_site(store, SITE, policy=NO_SPAN).stored
    served = store.rules(SITE)
    for n, page in enumerate(stories[6:]):
        for copy in ("alpha", "bravo", "charlie", "delta"):  # many addresses, several decoys each, each its own
            fake = comments_as_article(dataclasses.replace(page, url=page.url.replace(".html", f"-{copy}.html")), copy)
            store.put_page(fake, contributor=f"bot-{n}-{copy}")
    outcome = learn_stored_site(store, SITE, policy=NO_SPAN)
    assert outcome.decision == "hold" and not outcome.stored
    assert store.rules(SITE) == served and store.site_info(SITE)["held_for_review"]
    assert store.site_info(SITE)["pages_since_learn"] == 0  # not re-learned on every upload meanwhile
    store.put_page(dataclasses.replace(stories[0], url=stories[0].url.replace(".html", "-later.html")))
    version = store.accept_held(SITE)
    assert version == served["version"] + 1 and store.held_rules(SITE) is None
    assert store.rules(SITE)["templates"] != served["templates"]
    assert store.site_info(SITE)["pages_since_learn"] == 1  # accepting learns from no page: the later one counts


# -- the store ------------------------------------------------------------------------------------------


def page(n: int, text: str = "Some article text here.", canonical: str | None = None) -> Page:
    block = Block(text, "p", ["html", "body", "p"], "body > p", Box(0, 0, 100, 20), {})
    return Page(url=f"https://{SITE}/story/{n}", canonical_url=canonical, blocks=[block], collector="bookmarklet")


def test_a_page_is_owned_by_its_contributor(store):
    assert store.put_page(page(1), contributor="reader").stored
    result = store.put_page(page(1, "Replaced by someone else."), contributor="attacker")
    assert not result.stored and not result.created and result.bytes == 0
    assert store.get_page(SITE, page(1).key).text == "Some article text here."
    assert store.contributors(SITE) == {page(1).key: "reader"}
    assert store.site_info(SITE)["pages_since_learn"] == 1  # a refused upload is no new page
    assert store.put_page(page(1, "The reader's new copy."), contributor="reader").stored
    assert store.put_page(page(1, "The operator's copy."), contributor=None).stored  # the operator may
    assert not store.put_page(page(1, "Again."), contributor="reader").stored  # and owns it now


def test_the_cap_evicts_pages_that_taught_the_rules_last(store):
    store.max_pages_per_site = 10
    for n in range(4):
        store.put_page(page(n), contributor="reader", now=float(n))
    store.set_taught(SITE, [page(n).key for n in range(4)])
    for n in range(4, 20):
        store.put_page(page(n), contributor="flood", now=float(n))
    keys = store.page_keys(SITE)
    assert len(keys) == 10 and {page(n).key for n in range(4)} <= set(keys)
    assert keys[4:] == [page(n).key for n in range(14, 20)]  # the rest: the newest
    # At most half the cap is kept as taught.
    store.set_taught(SITE, keys)
    assert len(store.taught(SITE)) == 5
