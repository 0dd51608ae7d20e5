"""graphfit == SGLang 0.5.23 on Nemotron-H's expert-remap rules (model_overrides/
nemotron_h.py:57-98, 152-180), HYV4's deep_gemm pick (deepseek_v2.py:80-97) and the
ModelOpt / W4A16 config those overrides read from config.json but not from a local
hf_quant_config.json or a ModelSlim description (nemotron_h.py:38-72), NemotronHPuzzle's
block_configs under a remap (:169-180), EPLB's start-up checks (parallel_hook.py:750-791) and
the MoE runners' expert-parallel asserts (moe_hook.py:89-92, 102-105, 161-167):
generated model directories read by graphfit's reader and by SGLang's own ModelConfig,
override and hook code (tests.oracle.sglang_class_picks_cases; SGLang's JIT DeepGEMM switch
by its own `_compute_enable_deep_gemm`; its EPLB checks by tests.oracle.sglang_eplb_oracle)."""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines import sglang_class_picks as picks  # noqa: E402
from graphfit.planner.engines import sglang_eplb_checks as eplb  # noqa: E402
from graphfit.planner.engines import sglang_quantization as sq  # noqa: E402
from tests.oracle import sglang_class_picks_cases as cases  # noqa: E402
from tests.oracle import sglang_eplb_oracle as eo  # noqa: E402
from tests.oracle import sglang_model_quant_oracle as mo  # noqa: E402

COUNT, SEED = 360, 13


@functools.cache
def _lines(root: str) -> tuple[tuple[cases.Case, Path, tuple[str, str | None, str | None]],
                               ...]:
    """(case, its directory, SGLang's answer) per drawn line, SGLang's answers computed
    once on the files as written (the plants change graphfit only)."""
    rng = random.Random(SEED)
    out = []
    for index in range(COUNT):
        case = cases.draw(rng)
        folder = Path(root) / f"m{index}"
        cases.write(folder, case)
        out.append((case, folder, cases.sglang(case, folder)))
    return tuple(out)


def _score(root: str) -> tuple[dict[str, int], list[str]]:
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    wrong = []
    for case, folder, theirs in _lines(root):
        ours = cases.graphfit(case, folder)
        verdict = cases.compare(case, ours, theirs)
        if verdict == "differ" and _loader_stops_first(case, folder, ours, theirs):
            verdict = "agree"  # both refuse: SGLang's loader stops before its GPU check
        counts[verdict] += 1
        if verdict == "differ":
            wrong.append(f"{case.label()}: graphfit {ours}; SGLang {theirs}")
    return counts, wrong


def _loader_stops_first(case: cases.Case, folder: Path,
                        ours: tuple[str, str | None, str | None],
                        theirs: tuple[str, str | None, str | None]) -> bool:
    """graphfit refuses on the loader's GPU check (model_loader/loader.py:253-262) where
    this oracle's overrides accept, and SGLang's own loader refuses the line earlier in the
    same function (a quantization config it cannot read): both refuse, for other reasons."""
    from tests.oracle import sglang_quant_capability_oracle as co

    if ours[0] != "refused" or "model_loader/loader.py:253-262" not in str(ours[1]) \
            or theirs[0] != "ok":
        return False
    flag = theirs[1] if theirs[1] is not None else case.flag
    return co.load(flag, case.config_quant, case.capability,
                   model_dir=str(folder)).stage == "before"


# HYV4's MXFP8 deep_gemm pick on lines SGLang's loader reads (s47q): the drawn lines that
# showed it were mostly ones the loader refuses (an mxfp8 config without activation_scheme,
# a flag whose config class refuses MXFP8), which now score as refusals
HYV4_CONFIGS = ({"quant_algo": "MXFP8"}, {"quantization": {"quant_algo": "MXFP8"}},
                {"quant_method": "modelopt", "quant_algo": "MXFP8"},
                {"quant_method": "modelopt", "quant_algo": "mxfp8",
                 "activation_scheme": "dynamic"})


@functools.cache
def _hyv4_lines(root: str) -> tuple[tuple[cases.Case, Path, tuple[str, str | None, str | None]],
                                    ...]:
    """(case, directory, SGLang's answer): each HYV4 class x config x flag (none, mxfp8),
    auto runner, no a2a, SM100 with JIT DeepGEMM on."""
    out = []
    for index, (arch, config, flag) in enumerate(itertools.product(
            cases.ARCHS[4:], HYV4_CONFIGS, (None, "mxfp8"))):
        case = cases.Case(arch, config, {}, flag, "auto", "none", True, False, 0, "trivial",
                          True)
        folder = Path(root) / f"hyv4-{index}"
        cases.write(folder, case)
        out.append((case, folder, cases.sglang(case, folder)))
    return tuple(out)


def _hyv4_wrong(root: str) -> list[str]:
    return [f"{case.label()}: graphfit {ours}; SGLang {theirs}"
            for case, folder, theirs in _hyv4_lines(root)
            if cases.compare(case, ours := cases.graphfit(case, folder), theirs) == "differ"]


def test_hyv4_mxfp8_lines_agree(root: str) -> None:
    """HYV4's MXFP8 lines agree, and SGLang picks deep_gemm on some of them."""
    assert not _hyv4_wrong(root), _hyv4_wrong(root)[:4]
    agreed = [theirs for case, folder, theirs in _hyv4_lines(root)
              if cases.compare(case, cases.graphfit(case, folder), theirs) == "agree"]
    assert sum(theirs[2] == "deep_gemm" for theirs in agreed) >= 4, agreed


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("class-picks"))


def test_every_generated_line_agrees(root: str) -> None:
    """Every drawn line graphfit models agrees with SGLang; the new picks and refusals
    happen (routed under a remap, deep_gemm for HYV4 MXFP8, the remap refusals, the
    AttributeError of a ModelOpt config hf_config lacks)."""
    counts, wrong = _score(root)
    assert not wrong, f"{len(wrong)} of {COUNT} differ:\n" + "\n".join(wrong[:10])
    assert counts["agree"] > COUNT * 3 // 4, counts
    answers = [theirs for *_, theirs in _lines(root)]
    runners = {theirs[2] for theirs in answers if theirs[0] == "ok"}
    assert {picks.ROUTED, "deep_gemm"} <= runners, runners
    messages = " ".join(str(theirs[1]) for theirs in answers if theirs[0] != "ok")
    assert "quantization_config" in messages and "routes inside the kernel" in messages
    # EPLB's own refusals and the Puzzle's block check happen too
    assert "AssertionError" in messages and "different physical replica" in messages
    assert "same routed expert count" in messages


# every --moe-a2a-backend choice (arg_groups/fields/exec_.py:836-868)
A2A_CHOICES = ("none", "deepep", "deepep_v2", "mooncake", "nixl", "mori", "ascend_fuseep",
               "ascend_tp", "flashinfer", "flashinfer_megamoe", "megamoe", "pplx")


@functools.cache
def _grid() -> tuple[tuple[tuple[object, ...], str | None], ...]:
    """(line, SGLang's refusal or None) over every a2a backend, join mode and dispatch
    algorithm, by SGLang's own `_a2a_ep_size` + `handle_eplb_and_dispatch`."""
    grid = itertools.product((False, True), ("trivial", "/tmp/loc.json"), (1, 2), (1, 2),
                             A2A_CHOICES, (None, "scale", "recover"),
                             (None, "static", "lp", "dynamic", "fake"))
    return tuple((line, eo.check(
        enable_eplb=line[0], init_expert_location=line[1], ep_size=line[2],
        tp_size=line[3], moe_a2a_backend=line[4], ep_join_mode=line[5],
        ep_dispatch_algorithm=line[6])) for line in grid)


def _grid_wrong() -> list[str]:
    wrong = []
    for (on, _location, ep, tp, a2a, join, dispatch), theirs in _grid():
        try:
            eplb.check_eplb(bool(on), join, dispatch, ep, tp, a2a)  # type: ignore[arg-type]
            ours = None
        except ConfigError as exc:
            ours = str(exc)
            assert len(ours) <= 200
        if (ours is None) != (theirs is None):
            wrong.append(f"{(on, ep, tp, a2a, join, dispatch)}: {ours}; SGLang {theirs}")
    return wrong


def test_eplb_checks_are_sglangs() -> None:
    """graphfit's EPLB checks refuse exactly the lines SGLang's own `_a2a_ep_size` +
    `handle_eplb_and_dispatch` refuse, over a grid of every a2a backend, join mode and
    dispatch algorithm."""
    wrong = _grid_wrong()
    assert not wrong, "\n".join(wrong[:10])
    assert sum(theirs is not None for _, theirs in _grid()) > 100


def test_jit_deepgemm_is_sglangs() -> None:
    """`ENABLE_JIT_DEEPGEMM` by SGLang's own configurer, for each variable value and SM:
    graphfit answers it or says unknown (SM120/121's API probe)."""
    for env in (True, False):
        for sm in (80, 86, 89, 90, 100, 103, 110, 120, 121):
            ours = picks.jit_deepgemm(env, sm)
            answers = {mo.jit_deepgemm(env, sm, apis) for apis in (True, False)}
            assert (ours is None) == (len(answers) > 1), (env, sm)
            if ours is not None:
                assert answers == {ours}, (env, sm)


KERNEL_RUNNERS = ("auto", "cutlass", "flashinfer_cutlass", "flashinfer_cutedsl",
                  "flashinfer_trtllm")
KERNEL_QUANTS = (None, "fp8", "mxfp8", "modelopt_fp4", "modelopt_fp8", "nvfp4_online")
KERNEL_SIZES = ((1, 4), (2, 4), (4, 4), (2, 1))  # (ep_size, tp_size)


@functools.cache
def _kernel_grid() -> tuple[tuple[tuple[str, str | None, int, int], str | None], ...]:
    """(line, SGLang's refusal or None): SGLang's own `handle_moe_kernel_config` (moe_hook.py:
    70-167) with the line's ep_size and tp_size, on a model without class overrides, SM100."""
    out = []
    for runner, quant, (ep, tp) in itertools.product(KERNEL_RUNNERS, KERNEL_QUANTS,
                                                      KERNEL_SIZES):
        answer = mo.resolve("LlamaForCausalLM", quant, None, True, "none", runner,
                            kernel=True, args={"ep_size": ep, "tp_size": tp})
        out.append(((runner, quant, ep, tp), answer[1] if answer[0] != "ok" else None))
    return tuple(out)


def _kernel_wrong() -> list[str]:
    wrong = []
    for (runner, quant, ep, tp), theirs in _kernel_grid():
        try:
            sq.check_runner(runner, quant, True)
            eplb.check_runner_ep(sq.kernel_runner(runner, quant), quant, ep, tp, "none")
            ours = None
        except ConfigError as exc:
            ours = str(exc)
            assert len(ours) <= 200
        if (ours is None) != (theirs is None):
            wrong.append(f"{(runner, quant, ep, tp)}: {ours}; SGLang {theirs}")
    return wrong


def test_moe_runner_ep_rules_are_sglangs() -> None:
    """graphfit's MoE runner checks (flags and expert-parallel sizes) refuse exactly the lines
    SGLang's own `handle_moe_kernel_config` refuses, over runners x flags x (ep, tp)."""
    wrong = _kernel_wrong()
    assert not wrong, "\n".join(wrong[:10])
    messages = " ".join(str(theirs) for _, theirs in _kernel_grid())
    assert "only supported with ep_size == 1" in messages
    assert "must be 1 or the same as the tensor parallel size" in messages


def _no_remap_pick(m: pytest.MonkeyPatch) -> None:
    m.setattr(picks, "remap_runner", lambda runner, a2a, sm100: None)


def _no_hyv4_pick(m: pytest.MonkeyPatch) -> None:
    m.setattr(picks, "hyv4_runner", lambda arch, runner, hf, deepgemm: None)


def _no_remap_checks(m: pytest.MonkeyPatch) -> None:
    m.setattr(picks, "check_expert_remap", lambda *args: None)


def _effective_config_read(m: pytest.MonkeyPatch) -> None:
    # the overrides read the verified config (hf_quant_config.json's) instead of config.json's
    m.setattr(sq, "hf_config_quant", lambda config: picks.hf_dict(
        None, sq.overrides.quant_config(config.checkpoint_quant_config)))


def _case_sensitive_mxfp8(m: pytest.MonkeyPatch) -> None:
    original = picks.hyv4_mxfp8
    m.setattr(picks, "hyv4_mxfp8", lambda hf: original(hf) and "mxfp8" not in str(hf))


def _puzzle_first_block_only(m: pytest.MonkeyPatch) -> None:
    original = picks.check_expert_remap
    m.setattr(picks, "check_expert_remap", lambda *args: original(
        *args[:5], args[5][:1] if len(args) > 5 and args[5] else None))


def _ep_size_as_given(m: pytest.MonkeyPatch) -> None:
    # --ep-size read as given under an a2a backend that spans the TP group
    m.setattr(eplb, "resolved_ep_size", lambda ep_size, tp_size, a2a: ep_size)


def _no_eplb_ep_check(m: pytest.MonkeyPatch) -> None:
    m.setattr(eplb, "resolved_ep_size", lambda ep_size, tp_size, a2a: 2)


def _dispatch_any_a2a(m: pytest.MonkeyPatch) -> None:
    m.setattr(eplb, "PER_RANK_PICKS", ("lp",))  # static forgotten


def _cutlass_any_ep(m: pytest.MonkeyPatch) -> None:
    m.setattr(eplb, "CUTLASS_EP_ONE", ("fp8",))  # mxfp8 forgotten


def _flashinfer_ep_any(m: pytest.MonkeyPatch) -> None:
    m.setattr(eplb, "EP_ONE_OR_TP", ("flashinfer_cutlass",))  # cutedsl forgotten


def _ep_before_resolution(m: pytest.MonkeyPatch) -> None:
    # the ep check on the runner as given, before mxfp8's swap to flashinfer_trtllm
    m.setattr(sq, "kernel_runner", lambda runner, quant: runner)


def _no_runner_ep_check(m: pytest.MonkeyPatch) -> None:
    m.setattr(eplb, "check_runner_ep", lambda *args: None)


PLANTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "no remap pick": _no_remap_pick, "no hyv4 pick": _no_hyv4_pick,
    "no remap checks": _no_remap_checks, "effective config read": _effective_config_read,
    "case-sensitive MXFP8": _case_sensitive_mxfp8,
    "puzzle first block only": _puzzle_first_block_only,
    "ep_size as given": _ep_size_as_given, "no EPLB ep_size check": _no_eplb_ep_check,
    "static dispatch forgotten": _dispatch_any_a2a,
    "cutlass mxfp8 ep forgotten": _cutlass_any_ep, "cutedsl ep forgotten": _flashinfer_ep_any,
    "ep check before mxfp8 swap": _ep_before_resolution,
    "no runner ep check": _no_runner_ep_check,
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_error_is_caught(plant: str, root: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule, broken on purpose, makes some drawn line (or, for the EPLB checks, some
    line of the grid) differ from SGLang."""
    _lines(root)
    PLANTS[plant](monkeypatch)
    assert _score(root)[1] or _grid_wrong() or _kernel_wrong() or _hyv4_wrong(root), plant
