"""Self-training's split: the fallback is judged on sites it was not trained on."""
import logging
import shutil

from sitewise.mss.model import SHIPPED_MODEL
from sitewise.mss.selftrain import HOLD_OUT_EVERY, MIN_SITES_TO_HOLD_OUT, self_train, split_held_back


def page(site: str, number: int) -> tuple[str, str, str]:
    return f"<p>{number}</p>", str(number), f"https://www.{site}.test/{number}"


def test_every_fourth_site_is_held_back_whole():
    sites = [f"site{i}" for i in range(2 * HOLD_OUT_EVERY)]
    pages = [page(site, n) for n in range(3) for site in sites]
    training, held_back = split_held_back(pages)
    held_sites = {url.split(".")[1] for _, _, url in held_back}
    assert held_sites == {sites[HOLD_OUT_EVERY - 1], sites[2 * HOLD_OUT_EVERY - 1]}
    assert not held_sites & {url.split(".")[1] for _, _, url in training}
    assert len(training) + len(held_back) == len(pages)


def test_a_caller_can_name_each_pages_site():
    """Pages without a URL (or of sites the caller groups otherwise) are split by the names given."""
    items = [(f"page {n}", f"group{n % MIN_SITES_TO_HOLD_OUT}") for n in range(4 * MIN_SITES_TO_HOLD_OUT)]
    training, held_back = split_held_back(items, [group for _, group in items])
    assert {group for _, group in held_back} == {f"group{HOLD_OUT_EVERY - 1}"}
    assert all(group != f"group{HOLD_OUT_EVERY - 1}" for _, group in training)


def test_too_few_sites_are_split_by_page():
    pages = [page("one", n) for n in range(8)]
    training, held_back = split_held_back(pages)
    assert len(held_back) == 8 // HOLD_OUT_EVERY and len(training) == 8 - 8 // HOLD_OUT_EVERY


def test_a_model_the_operator_named_is_never_replaced(tmp_path, monkeypatch, caplog):
    """SITEWISE_MSS_MODEL naming the operator's own model: self-training (which joins the shipped model,
    not the operator's) leaves that file alone, however well its candidate would score."""
    own = tmp_path / "operators-model.json.gz"
    shutil.copyfile(SHIPPED_MODEL, own)  # a block model self-training did not write
    before = own.read_bytes()
    monkeypatch.setenv("SITEWISE_MSS_MODEL", str(own))
    caplog.set_level(logging.INFO, logger="sitewise.mss.selftrain")
    result = self_train([page(f"site{n}", n) for n in range(40)], min_pages=1)
    assert result.path is None and own.read_bytes() == before
    assert "operator chose" in caplog.text
