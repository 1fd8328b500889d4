"""Maximum subsequence and Ruzzo–Tompa k-best against brute force."""
from hypothesis import given, settings, strategies as st

from sitewise.mss.search import k_best, max_subsequence

scores = st.lists(st.integers(min_value=-6, max_value=6), max_size=40)


def brute_max(values):
    """The highest-valued run; on ties the shortest (a maximal segment does not absorb a zero-sum part)."""
    best = None
    for i in range(len(values)):
        for j in range(i + 1, len(values) + 1):
            total = sum(values[i:j])
            if total > 0 and (best is None or (total, i - j) > (best[2], best[0] - best[1])):
                best = (i, j, total)
    return best


def brute_maximal(values, offset=0):
    """Ruzzo & Tompa's maximal segments by their recursive definition: the best segment, then the
    maximal segments of what lies left and right of it."""
    best = brute_max(values)
    if best is None:
        return []
    i, j, total = best
    return brute_maximal(values[:i], offset) + [(offset + i, offset + j, total)] + brute_maximal(values[j:], offset + j)


@given(scores)
@settings(max_examples=300, deadline=None)
def test_max_subsequence_has_the_brute_force_value(values):
    found, expected = max_subsequence(values), brute_max(values)
    if expected is None:
        assert found is None
    else:
        assert found.value == expected[2] == sum(values[found.start:found.end])


@given(scores)
@settings(max_examples=300, deadline=None)
def test_k_best_finds_the_maximal_segments(values):
    found = k_best(values, len(values) + 1)
    expected = brute_maximal(values)
    assert sorted(s.value for s in found) == sorted(total for _, _, total in expected)
    spans = sorted((s.start, s.end) for s in found)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))  # no overlap
    assert all(s.value == sum(values[s.start:s.end]) > 0 for s in found)
    assert [s.value for s in found] == sorted((s.value for s in found), reverse=True)  # best first


@given(scores, st.integers(min_value=1, max_value=3))
@settings(max_examples=200, deadline=None)
def test_k_best_first_is_the_maximum_and_k_caps_the_count(values, k):
    found = k_best(values, k)
    assert len(found) <= k
    best = brute_max(values)
    assert (found[0].value if found else None) == (best[2] if best else None)


def test_paper_example_and_edge_cases():
    assert max_subsequence([]) is None and k_best([], 2) == []
    assert max_subsequence([-1, -2]) is None
    segment = max_subsequence([-3.25, 1, 1, 1, -3.25, 1, -3.25])
    assert (segment.start, segment.end, segment.value) == (1, 4, 3.0)
    assert [(s.start, s.end) for s in k_best([2, -5, 4, -1, 2, -9, 1], 5)] == [(2, 5), (0, 1), (6, 7)]
