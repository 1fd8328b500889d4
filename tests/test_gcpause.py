import gc

import pytest

from sitewise.gcpause import cyclic_gc_paused
from sitewise.mss.extractor import extract_mss

from test_mss_extract import ARTICLE_PAGE


@cyclic_gc_paused
def _collector_state(fail: bool = False) -> bool:
    if fail:
        raise RuntimeError("the work failed")
    return gc.isenabled()


def test_the_collector_is_paused_for_the_work_and_resumed_after():
    assert gc.isenabled()
    assert _collector_state() is False
    assert gc.isenabled()


def test_the_collector_is_resumed_when_the_work_fails():
    with pytest.raises(RuntimeError):
        _collector_state(fail=True)
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off():
    gc.disable()
    try:
        assert _collector_state() is False
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_extraction_leaves_the_collector_as_it_found_it():
    result = extract_mss(ARTICLE_PAGE)
    assert result.text and gc.isenabled()
