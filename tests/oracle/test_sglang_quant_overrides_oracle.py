"""graphfit == SGLang 0.5.23 on every method's `override_quantization_method` inside
`_verify_quantization` (graphfit.planner.engines.sglang_quant_overrides): generated
`--quantization` x checkpoint quantization_config x GPU capability cases
(tests.oracle.sglang_quant_cases; first every overridden flag on each named layout of
tests.oracle.sglang_quantization_oracle at SM75 and SM100), each run through SGLang's own
method on a fake CUDA GPU of that capability (tests.oracle.sglang_quantization_oracle.
verify). graphfit models every case (no "not modelled"); each rule has a planted error the
comparison catches."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_quant_overrides as ov  # noqa: E402
from tests.oracle import sglang_quant_cases as qc  # noqa: E402
from tests.oracle import sglang_quantization_oracle as qo  # noqa: E402

COUNT, SEED = 700, 23


@functools.cache
def _sglang() -> tuple[tuple[str | None, Any, int, str], ...]:
    """SGLang's answer on each generated case (computed once: the plants change graphfit
    only)."""
    named = [(flag, cfg, cap) for flag, cfg, cap in itertools.product(
        [*sorted(set(qc.OVERRIDDEN) - {None}), None], qo.LAYOUTS.values(), (75, 100))]
    return tuple((flag, cfg, cap, qo.verify(flag, cfg, divmod(cap, 10)))
                 for flag, cfg, cap in named + qc.cases(COUNT, SEED))


def _wrong() -> tuple[list[str], dict[str, int]]:
    return qc.compare((f"--quantization {flag} on {cfg} at SM{cap}",
                       qc.from_layout(flag, cfg, cap), theirs)
                      for flag, cfg, cap, theirs in _sglang())


def test_every_generated_case_agrees() -> None:
    """Acceptance and the ModelConfig's quantization agree on every case; none is refused
    as not modelled, and the cases reach each outcome."""
    wrong, counts = _wrong()
    assert not wrong, f"{len(wrong)} of {counts['cases']} differ:\n" + "\n".join(wrong[:10])
    assert counts["not modelled"] == 0
    assert counts["accepted"] > COUNT // 10 and counts["refused"] > COUNT // 4, counts
    assert counts["crash"] > 0, counts  # a null quant_algo / quant_method stops SGLang
    upgraded = {theirs for *_, theirs in _sglang()}
    assert {"awq_marlin", "gptq_marlin", "moe_wna16", "humming", "modelopt_fp8", "mxfp8",
            "awq"} <= upgraded, upgraded  # not vacuous: every override answered somewhere


def _no_upper(cfg: Any, default: str = "") -> str:
    return str(cfg.get("quant_method", default))


PLANTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # Marlin needs SM80 (marlin_utils.py:78-79)
    "marlin capability": lambda m: m.setattr(ov, "MARLIN_MIN_CAPABILITY", 75),
    # Marlin's group sizes (marlin_utils.py:47)
    "marlin group sizes": lambda m: m.setattr(ov, "MARLIN_GROUP_SIZES", (-1, 32, 64, 128, 256)),
    # a Marlin-format GPTQ checkpoint is not converted (gptq/gptq.py:44-49, 416)
    "gptq marlin format": lambda m: m.setattr(ov, "_marlin_format", lambda cfg: False),
    # moe_wna16 takes AWQ from SM75 (moe_wna16.py:178-183, awq/awq.py:108-116)
    "awq capability": lambda m: m.setattr(ov, "AWQ_MIN_CAPABILITY", 80),
    # a generic modelopt flag names MXFP8 by quant_algo (modelopt_utils.py:23-30)
    "modelopt algos": lambda m: m.setattr(ov, "MODELOPT_ALGOS", {
        k: v for k, v in ov.MODELOPT_ALGOS.items() if k != "MXFP8"}),
    # the loop's order: ModelOpt answers before humming (__init__.py:63-104)
    "override order": lambda m: m.setattr(ov, "OVERRIDES", ov.OVERRIDES[::-1]),
    # quant_method is lower-cased before it is compared (model_config.py:2076-2078)
    "lower-casing": lambda m: m.setattr(ov, "method_of", _no_upper),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_error_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule, broken on purpose, makes some generated case differ from SGLang."""
    PLANTS[plant](monkeypatch)
    assert _wrong()[0], plant


UNKNOWN_GPU_CASES, ANY_GPU = 250, (70, 75, 89, 100)  # each side of SM75 and SM80


def test_an_unknown_gpu_is_refused_only_where_the_gpu_decides() -> None:
    """Without a GPU name graphfit accepts a case SGLang accepts on every GPU, refuses one it
    refuses on every GPU, and asks for the GPU where SGLang's answer hangs on it."""
    wrong, asked = [], 0
    for flag, cfg, _cap in qc.cases(UNKNOWN_GPU_CASES, SEED + 1):
        theirs = [qo.verify(flag, cfg, divmod(cap, 10)) for cap in ANY_GPU]
        accepted = [not t.startswith(("refused", "crash")) for t in theirs]
        mine = qc.from_layout(flag, cfg, None)
        if "name the GPU" in mine:
            asked += 1
            ok = any(accepted) and not all(accepted)
        else:
            ok = all(qc.same(mine, t) for t in theirs) if mine.startswith(
                ("refused", "crash")) else all(accepted) and mine == theirs[-1]
        if not ok:
            wrong.append(f"{flag} on {cfg}: graphfit {mine[:80]} | SGLang {theirs}")
    assert not wrong, "\n".join(wrong[:8])
    assert asked > 0  # not vacuous: some cases hang on the GPU


# the config keys an override may read, each with values on both sides of its rule
_KEY_VALUES: dict[str, tuple[Any, ...]] = {
    "bits": (4, 8), "group_size": (128, 7), "zero_point": (True, False),
    "sym": (True, False), "desc_act": (True, False), "checkpoint_format": ("gptq", "marlin"),
    "quant_algo": ("FP8", "NVFP4", "INT4_AWQ")}
_METHODS = ("awq", "gptq", "fp8", "mxfp8", "compressed-tensors", "modelopt_fp4")
_SAMPLES = 10


def _method_alone(flag: str | None, method: str) -> str:
    """graphfit's answer from checkpoint_quant_method alone (a config file's line)."""
    from graphfit.planner.core.errors import ConfigError
    from graphfit.planner.engines import sglang_quantization as sq

    try:
        return str(sq.check_clash(flag, method, None, 90))
    except ConfigError as exc:
        return f"asks: {exc}" if "give checkpoint_quant_config" in str(exc) else f"refused: {exc}"


def _method_alone_wrong() -> tuple[list[str], int, int]:
    import random

    rng, wrong, asked, varied = random.Random(SEED), [], 0, 0
    for flag, method in itertools.product([*qo.FLAGS, *qo.MORE_FLAGS], _METHODS):
        alone = _method_alone(flag, method)
        named = {key for key in _KEY_VALUES if key in alone.split("(")[0]}
        # every combination of the named keys' values, the other keys drawn (twice each)
        grid = [dict(zip(sorted(named), values, strict=True)) for values in
                itertools.product(*(_KEY_VALUES[k] for k in sorted(named)))] * 2
        configs = [{"quant_method": method, **{k: rng.choice(v) for k, v in
                                               _KEY_VALUES.items()}, **fixed}
                   for fixed in (grid if named else [{}] * _SAMPLES)]
        answers = [qo.verify(flag, cfg, (9, 0)) for cfg in configs]
        if not alone.startswith("asks"):
            if any(not qc.same(alone, theirs) for theirs in answers):
                wrong.append(f"{flag} on {method}: graphfit {alone[:60]} on the method alone, "
                             f"SGLang {sorted(set(answers))[:3]}")
            continue
        asked += 1
        varied += len({a[:7] if a.startswith(("refused", "crash")) else a
                       for a in answers}) > 1
        for cfg, theirs in zip(configs, answers, strict=True):
            kept = {k: v for k, v in cfg.items() if k == "quant_method" or k in named}
            mine = qc.ours(flag, kept, method, 90)
            if not qc.same(mine, theirs):
                wrong.append(f"{flag} on {cfg}: graphfit {mine[:60]} from {sorted(named)}, "
                             f"SGLang {theirs[:60]}")
    return wrong, asked, varied


def test_a_method_alone_asks_for_exactly_the_keys_sglang_reads() -> None:
    """With only checkpoint_quant_method, graphfit answers where SGLang's answer does not
    depend on the rest of the config (drawn values of every key an override reads), and
    otherwise asks for keys that are enough: SGLang's answer on a full config equals
    graphfit's on the method plus the keys it named."""
    wrong, asked, varied = _method_alone_wrong()
    assert not wrong, f"{len(wrong)} differ:\n" + "\n".join(wrong[:8])
    assert asked >= 5 and varied >= 3, (asked, varied)  # not vacuous: the keys matter


def _fewer_keys(drop: str, flag_only: str | None = None) -> Callable[..., Any]:
    from graphfit.planner.engines import sglang_quantization as sq

    original = sq._missing_keys

    def planted(method: str, flag: str | None) -> tuple[str, str] | None:
        if flag_only is not None and flag == flag_only and method in sq.MODELOPT_KNOWN:
            return None  # the rule before s32q: a ModelOpt method decides alone
        got = original(method, flag)
        if got is None:
            return None
        return ", ".join(k for k in got[0].split(", ") if k != drop), got[1]
    return planted


@pytest.mark.parametrize(("drop", "flag_only"), [("zero_point", None), ("sym", None),
                                                 ("", "modelopt")])
def test_a_planted_missing_key_error_is_caught(drop: str, flag_only: str | None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking for one key too few (awq's zero_point, gptq's sym), or answering a generic
    modelopt flag on a ModelOpt method without its quant_algo, differs from SGLang."""
    from graphfit.planner.engines import sglang_quantization as sq

    monkeypatch.setattr(sq, "_missing_keys", _fewer_keys(drop, flag_only))
    assert _method_alone_wrong()[0]
