"""SGLang 0.5.23's NGRAM lines (s32n): its page rule on every backend, the override's pick
included, and its topk.

`_handle_ngram` makes topk the BFS breadth (arg_groups/speculative_hook.py:1309-1313, default
10), fills the steps with draft tokens // topk (:1322-1328) and refuses topk > 1 with a resolved
page size > 1 off a flashinfer base (:1356-1366). The page it sees comes from the model
override (Qwen3.5 / Qwen3-Next / Qwen4-Exp on SM100: model_overrides/qwen3_5.py:25-49,
qwen4_exp.py:57-71; MiniMax-M3: minimax_m3.py:160-168, 180-187), the backend page constraints
(overrides.py:1144-1187) and FA4's page 128 (`_fa4_page_constraint`, overrides.py:1273-1297,
run at attention_hook.py:241). SGLang's own resolve on CPU (tests/oracle/sglang_oracle.py) vs
graphfit's plan of the same pasted line (tests/oracle/measure_sglang_backend_checks.py): the
same verdict, the same (base backend, page size) where SGLang starts, and the same topk /
steps / draft tokens; a planted error per rule shows the comparison fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_draft_default as dd  # noqa: E402
from graphfit.inputs import sglang_ngram as sn  # noqa: E402
from graphfit.planner.engines import sglang_arch_overrides as sao  # noqa: E402
from graphfit.planner.engines import sglang_backend_checks as bc  # noqa: E402
from tests.oracle import measure_sglang_backend_checks as m  # noqa: E402
from tests.oracle.test_sglang_mtp_refusals_oracle import MODELS  # noqa: E402

NGRAM1, NGRAM2 = m.other_spec("NGRAM")  # --speculative-eagle-topk 1 / 2, 8 draft tokens
PAGE16 = ("--page-size", "16")
NVFP4 = ("--kv-cache-dtype", "nvfp4")
BREADTH1 = ("--speculative-ngram-max-bfs-breadth", "1")

# (gpu, model shape, the line after the NGRAM spec, SGLang's verdict graphfit must share)
EDGES: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "override pick trtllm_mha, page 64": ("H100", "BeamForCausalLM", NGRAM1, "refused"),
    "override pick, breadth 1 plans": ("H100", "BeamForCausalLM", (
        *NGRAM1, "--speculative-ngram-max-bfs-breadth", "1"), "plan"),
    "topk is the BFS breadth, not the line's": ("H100", "llama", NGRAM2, "plan"),
    "fa4 page 128, line topk 1": ("B200", "asym", NGRAM1, "refused"),
    "fa4 line topk 2, page 1 plans": ("B200", "asym", NGRAM2, "plan"),
    "fa4 override pick, page 128": ("B200", "InklingForConditionalGeneration", (
        *NGRAM1,), "refused"),
    "Qwen3.5 SM100 triton, page 16 -> 1 plans": ("B200", "Qwen3_5ForConditionalGeneration", (
        *NGRAM1, *PAGE16), "plan"),
    "Qwen3-Next SM100 triton, page 16 -> 1 plans": ("B200", "Qwen3NextForCausalLM", (
        *NGRAM2, *PAGE16), "plan"),
    "MiniMax-M3 Hopper fa3 -> triton keeps page 128": ("H100", "MiniMaxM3SparseForCausalLM", (
        *NGRAM1, "--kv-cache-dtype", "fp8_e5m2"), "refused"),
    "MiniMax-M3 Hopper split flag, page 1 plans": ("H100", "MiniMaxM3SparseForCausalLM", (
        *NGRAM1, "--decode-attention-backend", "flashinfer"), "plan"),
    # s34a: SM100 native NVFP4 KV, trtllm_mha decode written by the NVFP4 hook
    # (kv_cache_hook.py:78-93), NGRAM breadth 1 only (:189-203)
    "SM100 nvfp4 KV, breadth 10 refused": ("B200", "llama", (*NGRAM1, *NVFP4), "refused"),
    "SM100 nvfp4 KV, default flashinfer, breadth 10 refused": ("B200", "llama", (
        *NGRAM2, *NVFP4), "refused"),
    "SM100 nvfp4 KV, breadth 1 plans": ("B200", "llama", (*NGRAM2, *NVFP4, *BREADTH1), "plan"),
    "SM100 nvfp4 KV, named trtllm_mha": ("B200", "llama", (
        *NGRAM1, *NVFP4, "--attention-backend", "trtllm_mha"), "refused"),
    "SM120 nvfp4 KV, breadth 10 plans": ("RTX5090", "llama", (*NGRAM1, *NVFP4), "plan"),
    "Hopper nvfp4 KV refused": ("H100", "llama", (*NGRAM1, *NVFP4, *BREADTH1), "refused"),
}
SITE = "speculative_hook.py:1356-1366"
NVFP4_SITE = "kv_cache_hook.py:189-203"


def _argv(spec: tuple[str, ...]) -> tuple[str, ...]:
    return ("--max-running-requests", "33", *spec)


def _sglang(argv: tuple[str, ...], gpu: str, model: str) -> Any:
    """SGLang's Resolved, or its refusal (tests/oracle/sglang_oracle.py)."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from tests.oracle import sglang_oracle as so

    so.oracle()
    with m.mo._restored_environ(), m.mo._platform(gpu):
        return so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                          capability=m.mo.CAPABILITIES.get(gpu, (9, 4)))


@contextmanager
def _recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bc.ResolvedAttention]]:
    """graphfit's resolved (base, page, ...) as its checks see it, one entry per check."""
    seen: list[bc.ResolvedAttention] = []
    original = bc.check_resolved

    def record(r: bc.ResolvedAttention) -> None:
        seen.append(r)
        original(r)

    with monkeypatch.context() as p:
        p.setattr(sao, "check_resolved", record)
        p.setattr(dd, "check_resolved", record)
        yield seen


def _graphfit(argv: tuple[str, ...], gpu: str, model: str) -> Any:
    """graphfit's planned config, or its error (the merge `graphfit plan` runs)."""
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError
    from graphfit.planner.plan import plan

    try:
        return plan(build_config({"gpu_memory_gb": gpu}, environ={}, pasted=[
            "python", "-m", "sglang.launch_server", "--model-path", model, *argv])).config
    except GraphfitError as exc:
        return str(exc)


def differences(argv: tuple[str, ...], gpu: str, model: str,
                monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Where graphfit and SGLang part on one NGRAM line: the verdict; where SGLang starts,
    the base backend and page size `_handle_ngram` saw and the resolved topk / steps / draft
    tokens; where both refuse, graphfit's refusal of the page rule cites SGLang's place."""
    from tests.oracle import sglang_oracle as so

    sg = _sglang(argv, gpu, model)
    with _recorded(monkeypatch) as seen:
        ours = _graphfit(argv, gpu, model)
    if not isinstance(sg, so.Resolved):
        if not isinstance(ours, str):
            return [f"skip: SGLang refuses ({sg.text[:160]}), graphfit plans"]
        if "supported for the 'flashinfer' backend" in sg.text and SITE not in ours:
            return [f"other reason: SGLang's page rule, graphfit: {ours[:160]}"]
        if "SM100 native NVFP4 NGRAM" in sg.text and NVFP4_SITE not in ours:
            return [f"other reason: SGLang's NVFP4 breadth rule, graphfit: {ours[:160]}"]
        return []
    if isinstance(ours, str):
        return [f"over: SGLang plans, graphfit refuses: {ours[:160]}"]
    out = []
    if seen and (seen[-1].base, seen[-1].page_size) != (sg.attention_backend, sg.page_size):
        out.append(f"resolved (base, page): SGLang {(sg.attention_backend, sg.page_size)}, "
                   f"graphfit {(seen[-1].base, seen[-1].page_size)}")
    got = (ours.speculative_eagle_topk, ours.num_speculative_tokens,
           ours.speculative_num_draft_tokens)
    want = (sg.speculative_eagle_topk, sg.speculative_num_steps,
            sg.speculative_num_draft_tokens)
    if got != want:
        out.append(f"(topk, steps, draft tokens): SGLang {want}, graphfit {got}")
    return out


def _edge(name: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    gpu, shape, spec, verdict = EDGES[name]
    argv = _argv(spec)
    found = differences(argv, gpu, MODELS[shape], monkeypatch)
    sg = _sglang(argv, gpu, MODELS[shape])
    if (verdict == "plan") != (type(sg).__name__ == "Resolved"):
        found.append(f"the edge's SGLang verdict is not {verdict}")
    return found


@pytest.mark.parametrize("name", sorted(EDGES))
def test_ngram_edge_like_sglang(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not _edge(name, monkeypatch), _edge(name, monkeypatch)


TOPK_LINES = (
    (*NGRAM2,),  # the line's topk 2: SGLang's 10, steps 8 // 10 = 0
    (*NGRAM2, "--speculative-ngram-max-bfs-breadth", "3"),  # 3, steps 2
    ("--speculative-algorithm", "NGRAM", "--speculative-ngram-max-bfs-breadth", "5"),
)


@pytest.mark.parametrize("spec", TOPK_LINES, ids=[" ".join(s[2:]) for s in TOPK_LINES])
def test_ngram_topk_is_sglangs(spec: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner's NGRAM topk, steps and draft tokens are SGLang's resolved ones."""
    argv = _argv(spec)
    assert not differences(argv, "H100", MODELS["llama"], monkeypatch)


ORIGINAL_PAGE, ORIGINAL_DEFAULT = sao.override_page, dd.draft_extend_default
ORIGINAL_KV4 = bc.kv4


def _no_nvfp4_phases(p: pytest.MonkeyPatch) -> None:
    """The NVFP4 hook's (prefill, decode) rewrite dropped: graphfit's own pair stays."""
    p.setattr(dd, "nvfp4_phases", lambda gpu, kv, explicit, pre, dec, *a: (pre, dec))
    p.setattr(sao, "nvfp4_phases", lambda gpu, kv, explicit, pre, dec, *a: (pre, dec))


def _no_fa4(p: pytest.MonkeyPatch) -> None:
    p.setattr(dd, "fa4_page", lambda *a: None)
    p.setattr(sao, "fa4_page", lambda *a: None)


PLANTED: tuple[tuple[str, Callable[[pytest.MonkeyPatch], None]], ...] = (
    # s31b's state: the page rule not run on an override's pick (topk 1 there)
    ("override pick trtllm_mha, page 64", lambda p: p.setattr(
        dd, "draft_extend_default", lambda inp: ORIGINAL_DEFAULT(
            replace(inp, checked_topk=1, ngram=False)))),
    # FA4's page 128 not restated (graphfit saw the line's page / 1)
    ("fa4 page 128, line topk 1", _no_fa4),
    ("fa4 override pick, page 128", _no_fa4),
    # FA4's rule read with NGRAM's breadth (10) instead of the topk the attention hook sees
    ("fa4 page 128, line topk 1", lambda p: p.setattr(
        dd, "fa4_page", lambda gpu, mla, topk, arch: bc.fa4_page(gpu, mla, 10, arch))),
    # the Qwen SM100 override's page ignored: the line's page 16 on triton
    ("Qwen3.5 SM100 triton, page 16 -> 1 plans", lambda p: p.setattr(
        sao, "override_page", lambda inp, base: inp.default.page_size
        if inp.default.architecture in sao.QWEN3_5 else ORIGINAL_PAGE(inp, base))),
    # MiniMax-M3's page read off the final base (after the fp8_e5m2 fallback to triton) or
    # off SGLang's generic default rather than the override's pick / the line's flag
    ("MiniMax-M3 Hopper fa3 -> triton keeps page 128", lambda p: p.setattr(
        sao, "override_page", lambda inp, base: ORIGINAL_PAGE(
            inp, "triton" if inp.default.kv_cache_dtype == "fp8_e5m2" else base))),
    ("MiniMax-M3 Hopper split flag, page 1 plans", lambda p: p.setattr(
        sao, "override_page", lambda inp, base: ORIGINAL_PAGE(inp, base or "fa3"))),
    # the pasted line's --speculative-eagle-topk kept as NGRAM's topk (main c91e348)
    ("topk is the BFS breadth, not the line's", lambda p: p.setattr(
        sn, "line", lambda values, settings, notes: settings)),
    ("topk is the BFS breadth, not the line's", lambda p: p.setattr(
        sn, "BFS_BREADTH_DEFAULT", 4)),
    # s34a: the NVFP4 KV rules not run (main e5f573b), or the breadth rule read off
    # graphfit's resolved pair (the default's base) instead of the NVFP4 hook's decode
    ("SM100 nvfp4 KV, breadth 10 refused", lambda p: p.setattr(bc, "kv4", lambda *a: None)),
    ("Hopper nvfp4 KV refused", lambda p: p.setattr(bc, "kv4", lambda *a: None)),
    ("SM100 nvfp4 KV, default flashinfer, breadth 10 refused", _no_nvfp4_phases),
    ("SM100 nvfp4 KV, breadth 1 plans", _no_nvfp4_phases),
    # the rule widened to SM120 (its hook: SM100 only, kv_cache_hook.py:141-146)
    ("SM120 nvfp4 KV, breadth 10 plans", lambda p: p.setattr(
        bc, "kv4", lambda r, pre, dec: ORIGINAL_KV4(replace(r, gpu="sm100"), pre, dec))),
    # SM120's pair not rewritten: graphfit's page 1 where SGLang's trtllm_mha decode has 64
    ("SM120 nvfp4 KV, breadth 10 plans", _no_nvfp4_phases),
    # the breadth rule ahead of the page rule's reason check: the named trtllm_mha line
    # must cite the NVFP4 rule (SGLang's kv hook runs before the speculative one)
    ("SM100 nvfp4 KV, named trtllm_mha", lambda p: p.setattr(bc, "kv4", lambda *a: None)),
)


@pytest.mark.parametrize(("edge", "plant"), PLANTED, ids=[e for e, _ in PLANTED])
def test_planted_error_is_caught(edge: str, plant: Callable[[pytest.MonkeyPatch], None],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch)
    assert _edge(edge, monkeypatch), edge


PAIRS = [(gpu, shape) for gpu in m.GPUS for shape in sorted(MODELS)
         if not (shape == "vl" and gpu in m.mo.PLATFORMS)]
BREADTHS = ((), ("--speculative-ngram-max-bfs-breadth", "1"),
            ("--speculative-ngram-max-bfs-breadth", "3"))


@settings(max_examples=40)
@given(st.sampled_from(PAIRS), st.sampled_from((NGRAM1, NGRAM2)), st.sampled_from(BREADTHS),
       st.sampled_from(m.EXTRAS))
def test_generated_ngram_lines_like_sglang(pair: tuple[str, str], spec: tuple[str, ...],
                                           breadth: tuple[str, ...],
                                           extra: tuple[str, ...]) -> None:
    """Generated NGRAM lines on every model shape (the model overrides' picks included), 6
    GPUs, the line's topk 1 / 2, BFS breadth default / 1 / 3, page 16, fp8_e5m2 KV, a split
    flag: SGLang's verdict, resolved page and topk / steps are graphfit's."""
    gpu, shape = pair
    argv = _argv((*spec, *breadth, *extra))
    with pytest.MonkeyPatch.context() as monkeypatch:
        found = differences(argv, gpu, MODELS[shape], monkeypatch)
    assert not found, (gpu, shape, argv, found)


def _as_file(argv: tuple[str, ...], model: str) -> dict[str, Any]:
    """The line's flags as a `--config` file's SGLang keys (ints typed as YAML would)."""
    pairs = dict(zip(argv[::2], argv[1::2], strict=True))
    return {"model-path": model, **{k.lstrip("-"): int(v) if v.isdigit() else v
                                    for k, v in pairs.items()}}


def file_differences(argv: tuple[str, ...], gpu: str, model: str, tmp: Any) -> list[str]:
    """Where graphfit's plan of the line written as a config file (s34a) parts from SGLang's
    resolve of the line: the verdict, and the resolved topk / steps / draft tokens."""
    import json

    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError
    from graphfit.planner.plan import plan
    from tests.oracle import sglang_oracle as so

    path = tmp / "serve.json"
    path.write_text(json.dumps(_as_file(argv, model)))
    sg = _sglang(argv, gpu, model)
    try:
        ours = plan(build_config({"gpu_memory_gb": gpu, "config_file": str(path)},
                                 environ={})).config
    except GraphfitError as exc:
        return [] if not isinstance(sg, so.Resolved) else [f"over: {str(exc)[:160]}"]
    if not isinstance(sg, so.Resolved):
        return []  # the file path runs no backend checks (a pasted line's reader does)
    got = (ours.speculative_eagle_topk, ours.num_speculative_tokens,
           ours.speculative_num_draft_tokens)
    want = (sg.speculative_eagle_topk, sg.speculative_num_steps,
            sg.speculative_num_draft_tokens)
    return [] if got == want else [f"(topk, steps, draft tokens): SGLang {want}, file {got}"]


FILE_LINES = (NGRAM1, NGRAM2, (*NGRAM2, *BREADTH1), (*NGRAM1, "--speculative-ngram-max-bfs-"
              "breadth", "4"), ("--speculative-algorithm", "NGRAM",
                                "--speculative-ngram-max-bfs-breadth", "3"))


@settings(max_examples=12)
@given(st.sampled_from(FILE_LINES), st.sampled_from(("H100", "B200")))
def test_config_file_ngram_topk_like_sglang(spec: tuple[str, ...], gpu: str) -> None:
    """A config file's NGRAM topk / steps / draft tokens are SGLang's for the same keys as a
    line (its breadth, default 10, over the file's speculative-eagle-topk)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        found = file_differences(_argv(spec), gpu, MODELS["llama"], Path(tmp))
    assert not found, (spec, found)


@pytest.mark.parametrize("spec", (NGRAM2, (*NGRAM1, "--speculative-ngram-max-bfs-breadth",
                                           "4")), ids=("default breadth", "breadth 4"))
def test_config_file_planted(spec: tuple[str, ...], monkeypatch: pytest.MonkeyPatch,
                             tmp_path: Any) -> None:
    """The file's own speculative-eagle-topk kept as NGRAM's topk (main e5f573b): caught."""
    monkeypatch.setattr(sn, "file", lambda data, settings, notes, name: settings)
    assert file_differences(_argv(spec), "H100", MODELS["llama"], tmp_path)


# Kimi-K3's DSPARK line on SM100 (s32n): its override writes trtllm_mla for DSPARK too
# (model_overrides/kimi_k3.py:122-149), whose KV dtype check refuses fp8_e5m2
# (overrides.py:1214-1217)
(DSPARK,) = m.other_spec("DSPARK")
KIMI_LINES = {"fp8_e5m2 refused": (*DSPARK, "--kv-cache-dtype", "fp8_e5m2"),
              "auto KV plans": DSPARK}
ORIGINAL_SPECIAL = sao._special


def _kimi(name: str) -> tuple[str, bool]:
    argv = _argv(KIMI_LINES[name])
    model = MODELS["KimiK3ForConditionalGeneration"]
    said = m.verdict(argv, "B200", model)
    ours = m._graphfit(argv, "B200", model)
    return said, ours is None or "overrides.py:1214-1217" in ours


@pytest.mark.parametrize("name", sorted(KIMI_LINES))
def test_kimi_k3_dspark_like_sglang(name: str) -> None:
    said, cited = _kimi(name)
    assert said.split(":", 1)[0] in ("plan", "refused") and cited, said


def test_kimi_k3_dspark_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The override's DSPARK branch dropped (main c91e348): SGLang refuses, graphfit plans."""
    monkeypatch.setattr(sao, "_special", lambda inp: {} if (
        inp.default.architecture in sao.KIMI_K3
        and inp.default.speculative_algorithm == "DSPARK") else ORIGINAL_SPECIAL(inp))
    assert _kimi("fp8_e5m2 refused")[0].startswith("skip"), _kimi("fp8_e5m2 refused")
