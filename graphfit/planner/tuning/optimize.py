"""The capture ladder that minimises expected padding on a trace: an exact dynamic programme.

Problem. A trace gives weights w(n) over step sizes n. A ladder L (sorted sizes, |L| <= K,
max L = M) pads each n <= M to the smallest size >= n; steps with n > M run eagerly and
unpadded, so they cost nothing here. Minimise the expected waste
    sum_{n <= M} w(n) * (pad_L(n) - n),
optionally with every size except M a multiple of g (vLLM's V1 runner rounds sizes up to a
multiple of q when FULL decode graphs serve spec decode; a ladder already on that grid is
captured exactly as pasted). M is fixed by the caller: it is the size that capacity safety
and coverage were planned for, not something to trade against waste.

Candidates. Some optimal ladder uses only C = {round_up(n, g) < M : w(n) > 0, n <= M} + {M}.
Proof: take any feasible L and each s in L other than M, with p its predecessor in L (0 for
the first). If no weighted n lies in (p, s], drop s: nothing padded to s, so no cost changes.
Otherwise let n* be the largest weighted n in (p, s] and replace s by s' = round_up(n*, g):
s' <= s because s is a multiple of g and n* <= s, and s' >= n* > p, so the order is kept;
every n that padded to s is <= n* <= s' and now pads to s' <= s, and no weighted n lies in
(s', s], so no other step changes. If s' >= M, drop s and those steps pad to M (not more than
s). Each step lowers or keeps the cost and lands in C. Adding a size never raises the cost,
so the optimum over |L| <= K takes exactly min(K, |C|) candidates.

Recurrence. Number the candidates c_1 < ... < c_m = M, c_0 = 0, and let A_j, B_j be the
prefix sums of w(n) and n*w(n) over weighted n <= c_j. A block (c_i, c_j] padded to c_j costs
c_j*(A_j - A_i) - (B_j - B_i), so with F_1(j) = c_j*A_j - B_j,
    F_k(j) = c_j*A_j - B_j + min_{i<j} (F_{k-1}(i) + B_i - c_j*A_i),
and the answer is F_K(m). For fixed k the inner minimum is a lower envelope of lines (slope
-A_i, intercept F_{k-1}(i) + B_i) queried at x = c_j; slopes only fall as i grows and the
queries only rise, so a monotone convex-hull queue answers each layer in O(m) amortised:
O(K*m) overall instead of the naive O(K*m^2). It is exact (no relaxation): with integer
weights every comparison is integer arithmetic.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import round_up
from graphfit.planner.core.limits import MAX_DP_CELLS
from graphfit.planner.tuning.trace import Trace


@dataclass(frozen=True)
class LadderCost:
    """A ladder evaluated on a trace; expectations are per step (weights normalised)."""

    sizes: tuple[int, ...]
    expected_tokens: float  # E[n]: real tokens per step
    expected_padded: float  # E[padded]: tokens computed per step (eager steps unpadded)
    graphed_fraction: float  # share of steps that replay a graph (n <= max size)

    @property
    def num_graphs(self) -> int:
        return len(self.sizes)

    @property
    def expected_waste(self) -> float:
        """Padding tokens per step: E[padded - n]."""
        return self.expected_padded - self.expected_tokens

    @property
    def waste_fraction(self) -> float:
        """Padding tokens / computed tokens."""
        return self.expected_waste / self.expected_padded if self.expected_padded else 0.0


def ladder_cost(sizes: Sequence[int], trace: Trace) -> LadderCost:
    """Evaluate any ladder directly (bisect per size), independently of the programme."""
    ladder = tuple(sizes)
    if not ladder or any(a >= b for a, b in pairwise(ladder)):
        raise ConfigError("ladder: sizes must be non-empty, ascending and distinct")
    total = trace.total_weight
    real = padded = graphed = 0.0
    for n, w in zip(trace.sizes, trace.weights):
        real += n * w
        if n <= ladder[-1]:
            padded += ladder[bisect_left(ladder, n)] * w
            graphed += w
        else:
            padded += n * w
    return LadderCost(ladder, real / total, padded / total, graphed / total)


def expected_waste_total(sizes: Sequence[int], trace: Trace) -> float:
    """Unnormalised waste sum_n w(n) * (pad(n) - n); exact for integer weights."""
    top = sizes[-1]
    return sum(w * (sizes[bisect_left(sizes, n)] - n)
               for n, w in zip(trace.sizes, trace.weights) if n <= top)


def candidate_sizes(trace: Trace, max_size: int, multiple_of: int = 1) -> tuple[int, ...]:
    """C from the module docstring: the sizes an optimal ladder can be built from."""
    _check_int("max_size", max_size)
    _check_int("multiple_of", multiple_of)
    below = {round_up(n, multiple_of) for n in trace.sizes if n <= max_size}
    return (*sorted(s for s in below if s < max_size), max_size)


def optimal_ladder(trace: Trace, max_graphs: int, max_size: int,
                   multiple_of: int = 1) -> tuple[int, ...]:
    """The exact minimiser of expected padding with <= max_graphs sizes whose max is max_size.

    Every size but max_size is a multiple of `multiple_of`. Ties are broken deterministically.
    """
    _check_int("max_graphs", max_graphs)
    cands = candidate_sizes(trace, max_size, multiple_of)
    m = len(cands)
    if max_graphs >= m:
        return cands
    K = max_graphs
    if K * m > MAX_DP_CELLS:
        raise ConfigError(f"optimize: {K:,} graphs over {m:,} distinct trace sizes is more work "
                          f"than graphfit does ({MAX_DP_CELLS:,} cells); ask for fewer graphs "
                          "or bucket the trace's sizes")
    # prefix sums over candidates: A[j], B[j] = weight and n*weight of trace sizes <= c_j
    c = (0, *cands)
    A: list[float] = [0] * (m + 1)  # ints stay ints: exact for sampled traces
    B: list[float] = [0] * (m + 1)
    sizes, weights = trace.sizes, trace.weights
    t = 0
    a: float = 0
    b: float = 0
    for j in range(1, m + 1):
        while t < len(sizes) and sizes[t] <= c[j]:
            a += weights[t]
            b += sizes[t] * weights[t]
            t += 1
        A[j], B[j] = a, b
    base = [c[j] * A[j] - B[j] for j in range(m + 1)]  # cost of (0, c_j] padded to c_j
    F = base  # layer 1
    parents: list[list[int]] = []
    for k in range(2, K + 1):
        # j beyond m-(K-k) could not fit the sizes still to place
        F, parent = _layer(A, B, F, base, c, k, m - (K - k))
        parents.append(parent)
    chosen = [m]
    j = m
    for parent in reversed(parents):
        j = parent[j]
        chosen.append(j)
    return tuple(c[j] for j in reversed(chosen))


def _layer(A: list[float], B: list[float], F: list[float], base: list[float],
           c: tuple[int, ...], k: int, last: int) -> tuple[list[float], list[int]]:
    """F_k(j) and its argmin i for j in k..last, by the monotone hull queue.

    Lines (slope -A_i, intercept F_{k-1}(i) + B_i, i) are pushed in order of falling slope
    and queried at rising x = c_j; `head` only moves forward, so each line is pushed, popped
    and passed at most once. A line is one tuple: the loop reads each with a single index.
    """
    size = last + 1
    new: list[float] = [0] * size
    parent = [0] * size
    hull: list[tuple[float, float, int]] = [(0, 0, 0)] * size
    head, tail = 0, -1
    for j in range(k, size):
        i = j - 1  # line i serves queries j > i
        s = -A[i]
        y = F[i] + B[i]
        while tail >= head:
            s2, y2, _ = hull[tail]
            if s2 == s:  # equal slopes: keep the lower line
                if y2 <= y:
                    break
            elif tail == head:
                tail += 1
                hull[tail] = (s, y, i)
                break
            else:
                s1, y1, _ = hull[tail - 1]
                if (y - y1) * (s1 - s2) > (y2 - y1) * (s1 - s):
                    # the tail line still wins on some x between its neighbours: keep it
                    tail += 1
                    hull[tail] = (s, y, i)
                    break
            tail -= 1
        else:
            tail += 1
            hull[tail] = (s, y, i)
        x = c[j]
        s1, y1, best_i = hull[head]
        best = s1 * x + y1
        while head < tail:
            s2, y2, i2 = hull[head + 1]
            nxt = s2 * x + y2
            if nxt > best:
                break
            head += 1
            best, best_i = nxt, i2
        new[j] = base[j] + best
        parent[j] = best_i
    return new, parent


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name}: must be an integer >= 1, got {value!r}")
    return value


# --- sizes that must stay (--include) ------------------------------------------------------------

def optimal_ladder_including(trace: Trace, max_graphs: int, max_size: int,
                             multiple_of: int = 1,
                             include: Sequence[int] = ()) -> tuple[int, ...]:
    """The exact minimiser of expected padding when the ladder must contain `include` (e.g. 1,
    so a lone request never pads far) besides max_size, with <= max_graphs sizes.

    Included sizes f_1 < ... < f_r < M split the ladder into independent segments
    (0, f_1], (f_1, f_2], ..., (f_r, M]: a step in one segment pads to a size of that segment
    (its end is always there), so the segments' costs add up. Each segment is solved for every
    graph count at once by the same layered programme (its layer k ends at the segment's end),
    and a knapsack over segments shares out the graph budget. Included sizes are kept even off
    the `multiple_of` grid (the user asked for them); the other sizes stay on it.
    """
    _check_int("max_graphs", max_graphs)
    _check_int("max_size", max_size)
    _check_int("multiple_of", multiple_of)
    for size in include:
        _check_int("include", size)
        if size > max_size:
            raise ConfigError(f"include: {size} is above the max capture size {max_size}")
    ends = sorted({*include, max_size})
    if len(ends) > max_graphs:
        raise ConfigError(f"include: {len(ends)} sizes must stay (with the max {max_size}) but "
                          f"only {max_graphs} graphs are allowed")
    lows = [0, *ends[:-1]]
    # per segment: cost[k], ladder(k) for k = 1.. its useful count
    solved = [_segment_costs(trace, lo, hi, multiple_of, max_graphs - len(ends) + 1)
              for lo, hi in zip(lows, ends)]
    # knapsack over segments: best[t] = (cost, counts) with t graphs in the segments so far
    best: dict[int, tuple[float, tuple[int, ...]]] = {0: (0, ())}
    for costs, _ in solved:
        nxt: dict[int, tuple[float, tuple[int, ...]]] = {}
        for used, (total, counts) in best.items():
            for k in range(1, len(costs)):
                t = used + k
                if t > max_graphs:
                    break
                candidate = (total + costs[k], (*counts, k))
                if t not in nxt or candidate[0] < nxt[t][0]:
                    nxt[t] = candidate
        best = nxt
    _, counts = min(best.values(), key=lambda entry: (entry[0], len(entry[1]), entry[1]))
    sizes: list[int] = []
    for (_, ladder_of), k in zip(solved, counts):
        sizes += ladder_of(k)
    return tuple(sizes)


def _segment_costs(trace: Trace, lo: int, hi: int, multiple_of: int, most: int
                   ) -> tuple[list[float], Callable[[int], list[int]]]:
    """costs[k] (k = 1..) of the best k-size ladder of the segment (lo, hi] that ends at hi,
    and a function giving that ladder; costs[0] is unused."""
    inside = [(n, w) for n, w in zip(trace.sizes, trace.weights) if lo < n <= hi]
    cands = (*sorted({s for s in (round_up(n, multiple_of) for n, _ in inside) if s < hi}), hi)
    m = len(cands)
    c = (lo, *cands)
    A: list[float] = [0] * (m + 1)
    B: list[float] = [0] * (m + 1)
    t = 0
    a: float = 0
    b: float = 0
    for j in range(1, m + 1):
        while t < len(inside) and inside[t][0] <= c[j]:
            a += inside[t][1]
            b += inside[t][0] * inside[t][1]
            t += 1
        A[j], B[j] = a, b
    base = [c[j] * A[j] - B[j] for j in range(m + 1)]
    costs: list[float] = [0, base[m]]
    parents: list[list[int]] = []
    F = base
    for k in range(2, min(most, m) + 1):
        F, parent = _layer(A, B, F, base, c, k, m)
        parents.append(parent)
        costs.append(F[m])

    def ladder_of(k: int) -> list[int]:
        chosen = [m]
        j = m
        for parent in reversed(parents[:k - 1]):
            j = parent[j]
            chosen.append(j)
        return [c[j] for j in reversed(chosen)]

    return costs, ladder_of
