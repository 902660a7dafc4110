"""A bin's rounded mean and total from float sums only where they decide them (``core.physical.lengths.
_decided_means``): the figures are always those of the exact sums, also for means that lie on a rounding boundary,
where a float sum is off by one unit in the last place the wrong way."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.physical import lengths
from core.physical.lengths import BIN_EDGES_M, bin_lengths


def _exact(entries):
    """Per bin: (links, mean to the centimetre) from exact sums; the total to the decimetre and the mean of all."""
    per_bin: dict[int, list] = {}
    for length, weight in entries:
        b = next(i for i in range(len(BIN_EDGES_M) - 1) if length <= BIN_EDGES_M[i + 1])
        per_bin.setdefault(b, []).append((Fraction(length) * weight, weight))
    bins = [(sum(w for _s, w in per_bin[b]), round(float(sum(s for s, _w in per_bin[b]) / sum(w for _s, w in
                                                                                        per_bin[b])), 2))
            for b in sorted(per_bin)]
    total = sum(Fraction(length) * weight for length, weight in entries)
    return bins, round(float(total), 1), round(float(total / sum(w for _l, w in entries)), 2)


def _check(entries):
    got = bin_lengths("leaf-spine", np.array([e[0] for e in entries], dtype=float),
                      np.array([e[1] for e in entries], dtype=np.int64), np.ones(len(entries), dtype=np.int64))
    bins, total_m, mean_m = _exact(entries)
    assert [(x.links, x.mean_m) for x in got.bins] == bins
    assert (got.total_m, got.mean_m) == (total_m, mean_m)


# lengths whose exact mean is an odd eighth of a metre (a boundary of rounding to the centimetre: 1.875 -> 1.88)
# while their float sum is one unit in the last place below it (1.87 if it were taken as it is)
ON_A_BOUNDARY = [
    [1.8573, 1.5986, 2.6, 1.4441],
    [2.7, 1.34, 1.057, 0.4029999999999998],
    [0.806, 0.59, 1.728, 0.376],
    # ... or several units (a mean of 1.625 m; the float sum 58.500000000000014, 52.000000000000014)
    [1.4, 2.53, 1.53, 2.915, 2.794, 2.28, 2.21, 1.121, 0.3913, 1.764, 2.298, 0.77, 0.6094, 2.13, 0.5439, 0.8524, 2.3,
     2.3943, 2.9288, 1.19, 2.19, 1.6817, 1.4, 0.691, 2.559, 0.129, 1.2, 2.9551, 1.021, 1.2, 1.95, 2.787, 0.404, 2.0279,
     0.74, 0.6122000000000015],
    [0.917, 0.309, 0.7123, 2.54, 1.0, 2.68, 2.4107, 2.4, 0.151, 2.3, 2.7888, 1.28, 1.5, 2.814, 1.558, 1.39, 2.171,
     2.944, 2.5746, 0.6, 1.3289, 0.2, 3.0, 2.4223, 0.1309, 2.905, 0.9, 0.34, 2.53, 1.283, 0.6726, 1.2469000000000006],
]


@pytest.mark.parametrize("values", ON_A_BOUNDARY)
@pytest.mark.parametrize("other", [[], [250.0, 120.5]])
def test_a_mean_on_a_rounding_boundary_is_the_exact_sums(values, other):
    """Alone, or with links of another bin (the bin's mean is then not the mean of all, decided on its own)."""
    floats = np.bincount(np.zeros(len(values), dtype=np.int64), weights=np.array(values))[0]
    assert Fraction(floats) != sum(map(Fraction, values))  # the float sum is off ...
    assert round(floats / len(values), 2) != round(float(sum(map(Fraction, values)) / len(values)), 2)  # ... decisively
    entries = np.array(values + other)
    which = lengths._bin_of(entries)
    assert lengths._decided_means(which, 9, entries, np.ones(len(entries), dtype=np.int64),
                                  np.bincount(which, minlength=9).astype(float)) is None
    _check([(v, 1) for v in values + other])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3000), st.integers(1, 4), st.integers(1, 9)), min_size=1, max_size=40),
       st.integers(0, 7), st.integers(0, 40), st.integers(1, 9))
def test_float_sums_give_the_exact_sums_figures(entries, eighth, whole, last_weight):
    """Lengths of a few decimals (as cable lengths are), the last one chosen, where it is a float, to put the bin's
    exact mean on a rounding boundary (an eighth of a metre) or near it: every figure is the exact sums'."""
    values = [(round(m / 10 ** d, d) if d else float(m), w) for m, d, w in entries]
    target = Fraction(eighth, 8) + whole
    weight = sum(w for _v, w in values) + last_weight
    rest = (target * weight - sum(Fraction(v) * w for v, w in values)) / last_weight
    if rest > 0:  # exactly on the boundary where ``rest`` is a float, else next to it
        values.append((float(rest), last_weight))
    _check(values)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.sampled_from([0.0, *BIN_EDGES_M[1:-1]]), st.floats(0.0, 900.0)),
                          st.integers(0, 5000), st.integers(0, 2)), min_size=1, max_size=60))
def test_the_decided_figures_are_the_exact_sums_in_every_byte(entries):
    """The same ``LinkLengths``, byte for byte (a mean of 0 is 0.0, not -0.0), from the float sums as from the exact
    sums alone (``_decided_means`` left out)."""
    arrays = [np.array([e[k] for e in entries], dtype=t) for k, t in enumerate((float, np.int64, np.int64))]
    got = bin_lengths("global", *arrays)
    decided = lengths._decided_means
    try:
        lengths._decided_means = lambda *_args: None
        exact = bin_lengths("global", *arrays)
    finally:
        lengths._decided_means = decided
    assert got.model_dump_json() == exact.model_dump_json()


_CLASS_ENTRIES = st.lists(st.tuples(st.one_of(st.sampled_from([0.0, *BIN_EDGES_M[1:-1]]), st.floats(0.0, 900.0)),
                                    st.integers(0, 5000), st.integers(0, 2)), min_size=0, max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(_CLASS_ENTRIES, min_size=1, max_size=4), st.booleans())
def test_the_classes_binned_together_are_each_class_binned_alone(classes, exact):
    """Several classes binned in one pass (``_classes_binned``, as a plan bins its classes) give each class's
    ``LinkLengths`` alone, byte for byte: its own bins, longest, means, mean of all and total, also beside an empty
    class or one of no link, from the float sums and from the exact sums alone (``_decided_means`` left out)."""
    arrays = [tuple(np.array([e[k] for e in entries], dtype=t) for k, t in enumerate((float, np.int64, np.int64)))
              for entries in classes]
    names = [f"class {k}" for k in range(len(arrays))]
    decided = lengths._decided_means
    try:
        if exact:
            lengths._decided_means = lambda *_args: None
        together = lengths._classes_binned(tuple((name, *found) for name, found in zip(names, arrays)))
    finally:
        lengths._decided_means = decided
    alone = [bin_lengths(name, *found) for name, found in zip(names, arrays)]
    assert [x.model_dump_json() for x in together] == [x.model_dump_json() for x in alone]
