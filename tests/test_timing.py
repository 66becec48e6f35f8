"""blackwell_ops.timing on the CPU (wall clock): the side-by-side medians the session probes use."""
import random

from blackwell_ops.timing import Timer, quantile, side_by_side


def test_side_by_side_times_every_fn_the_same_number_of_times_in_random_order():
    calls = []
    fns = {k: (lambda k=k: calls.append(k)) for k in ("a", "b", "c")}
    med = side_by_side(fns, Timer("cpu"), rounds=6, reps=3, warmup=2, rng=random.Random(1))
    assert set(med) == set(fns) and all(v >= 0 for v in med.values())
    assert all(calls.count(k) == 6 * (3 + 2) for k in fns)
    # each round runs one burst per fn (warm-up and timed runs together), in a drawn order
    bursts = [calls[i] for i in range(0, len(calls), 5)]
    orders = {tuple(bursts[r * 3:(r + 1) * 3]) for r in range(6)}
    assert all(sorted(o) == ["a", "b", "c"] for o in orders) and len(orders) > 1


def test_quantile_interpolates():
    assert quantile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert quantile([0.0, 10.0], 0.25) == 2.5
