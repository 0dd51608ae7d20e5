"""Inkling's MTP draft heads' own conv caches: graphfit (graphfit.planner.engines.
sglang_mamba_mtp_draft, the draft config read by graphfit.inputs.sglang_inkling_draft) vs
SGLang 0.5.23's own `clone_with_new_mamba` per multi-layer EAGLE draft head, allocated on the
meta device after SGLang sized the target's state cache (tests/oracle/sglang_inkling_draft_
oracle): the bytes each rank's draft pools take, over TP / attention DP / scattered sconv /
fixed or memory-sized caches / step counts / a draft checkpoint of another geometry. Kept
small (a few SGLang resolutions); `python -m tests.oracle.measure_sglang_inkling_draft_conv`
draws more."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines.sglang_mamba_mtp_draft import draft_conv_caches  # noqa: E402
from tests.oracle import sglang_inkling_draft_oracle as sid  # noqa: E402
from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.test_sglang_mamba_memory_oracle import (  # noqa: E402
    _line,
    argv_of,
    graphfit_side,
    memory,
)

MULTI = "--enable-multi-layer-eagle"
SCATTERED = "--enable-scattered-sconv"


def line(shape: int = mm.INKLING, draft: int | None = None, steps: int = 3,
         multi: bool = True, more: tuple[str, ...] = (), **kw: Any) -> dict:
    """A pasted Inkling NEXTN line with its draft directory (the target's, or `draft`'s)."""
    flags = ("--speculative-draft-model-path", mm.model_dir(shape if draft is None else draft))
    return _line(shape=shape, spec=("NEXTN", steps, 1, steps + 1),
                 more=(*((MULTI,) if multi else ()), *flags, *more), **kw)


def sglang_bytes(p: dict) -> int | str | None:
    """SGLang's draft pools' bytes on a rank, None when it clones none, or its refusal."""
    r = mm.resolve(argv_of(p), p["gb"], p["shape"])
    if not isinstance(r, so.Resolved):
        return r.text
    preload, weights = memory(p)
    sized = mm.sized(r, preload, weights)
    if isinstance(sized, str):
        return sized
    return sid.draft_bytes(r, sized)


def graphfit_bytes(p: dict) -> int | str | None:
    try:
        config = graphfit_side(p)
    except ConfigError as exc:
        return f"refused: {exc}"
    caches = draft_conv_caches(config)
    return None if caches is None else caches.total_bytes()


_SEEN: dict[str, tuple[str, Any, Any]] = {}


def verdict(p: dict) -> tuple[str, Any, Any]:
    """("agree" | "both refuse" | "differ" | "sglang refuses", theirs, ours); a line's
    verdict is computed once a process (the two tests share the cases)."""
    key = repr(sorted(p.items()))
    if key not in _SEEN:
        _SEEN[key] = _verdict(p)
    return _SEEN[key]


def _verdict(p: dict) -> tuple[str, Any, Any]:
    theirs, ours = sglang_bytes(p), graphfit_bytes(p)
    if isinstance(theirs, str):
        return ("both refuse" if isinstance(ours, str) else "sglang refuses"), theirs, ours
    return ("agree" if theirs == ours else "differ"), theirs, ours


CASES = {
    "plain": line(),  # 3 heads of the memory-sized cache
    "tp4_dp2": line(tp=(4, 2), steps=2),  # attention-TP 2; the cache per DP shard
    "scattered": line(tp=(4, 1), more=(SCATTERED,)),  # the stream states sharded
    "fixed": line(M=3000, weights=0.5, tp=(2, 2)),  # --max-mamba-cache-size / DP
    "radix_off": line(radix_off=True, S=96, steps=1),  # the request count fixes it
    "other_draft": line(draft=mm.INKLING_DEFAULTS, steps=4),  # the draft's own geometry
    "defaults": line(shape=mm.INKLING_DEFAULTS, tp=(8, 1)),  # class defaults, 8 ranks
    "single_layer": line(multi=False),  # EAGLEWorkerV2: no clone
}


@pytest.mark.parametrize("p", list(CASES.values()), ids=list(CASES))
def test_draft_conv_caches_equal_sglang(p: dict) -> None:
    outcome, theirs, ours = verdict(p)
    assert outcome in ("agree", "both refuse"), (argv_of(p), theirs, ours)


def test_the_cases_exercise_the_rule() -> None:
    """The cases are not vacuous: SGLang clones pools on every multi-layer line (so a plant in
    graphfit's formula shows) and none on the single-layer one."""
    for name, p in CASES.items():
        theirs = verdict(p)[1]
        assert (theirs is None) == (name == "single_layer"), (name, theirs)
