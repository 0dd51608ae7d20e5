"""SGLang's default attention backend on ROCm for a model graphfit knows only by its class
(graphfit's `--architecture`, no local config.json; graphfit.planner.engines.
sglang_rocm_default), compared with SGLang's own resolution of the real config.json under
its ROCm platform override (tests/oracle/sglang_mtp_oracle._platform, MI300X), shared by
tests/oracle/test_sglang_rocm_class_default_oracle.py and
tests/oracle/measure_sglang_rocm_class_default.py.

`verdict(line, model_dir)`: SGLang resolves the line on the model directory and builds its
graph runners (tests/oracle/sglang_oracle.runners: each runner's seq_lens fill from SGLang's
own backend class); graphfit plans the same line with `--model-path org/model` (nothing
local) and `--architecture` the directory's class. "agree": graphfit restates the default
and every runner's fill is SGLang's; "noted": graphfit does not restate it, keeps fill 1 and
says so in its note; "differ: ...": anything else (a restated fill that is not SGLang's, or
a note missing). `before=True` plans with graphfit's pre-s41v rule (the class ignored)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.oracle import sglang_mtp_oracle as mo
from tests.oracle import sglang_oracle as so

NOTE = "seq_lens fills: SGLang's default attention backend on ROCm"
# MHA classes with no model override, as Llama-shaped config.json files (SGLang's MHA branch
# reads nothing else of them on ROCm)
PLAIN_CLASSES = ("LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM",
                 "Gemma2ForCausalLM", "Phi3ForCausalLM", "GraniteForCausalLM",
                 "InternLM2ForCausalLM", "Glm4ForCausalLM")


def model_dirs(root: Any) -> dict[str, str]:
    """The multi-layer EAGLE oracle's shapes and override architectures (Llama-shaped
    config.json files under each class, MLA ones for the MLA classes) plus PLAIN_CLASSES."""
    from tests.oracle import sglang_stubs as ss

    out = {**mo.model_dirs(Path(root) / "shapes"),
           **mo.override_model_dirs(Path(root) / "overrides")}
    for arch in PLAIN_CLASSES:
        out.setdefault(arch, str(ss.write_model_dir(Path(root) / "plain" / arch,
                                                    architecture=arch)))
    return out


def architecture(model_dir: str) -> str:
    archs = json.loads((Path(model_dir) / "config.json").read_text())["architectures"]
    return str(archs[0])


def _fills_sglang(line: tuple[str, ...], model_dir: str) -> dict[str, int] | str:
    with mo._restored_environ(), mo._platform("MI300X"):
        r = so.resolve(line, gpu_mem_gb=192, model=model_dir)
        if not isinstance(r, so.Resolved):
            return f"refused: {r}"
        try:
            runners = so.runners(r)
        except Exception as exc:  # SGLang's own failure building the runners
            return f"refused: {type(exc).__name__}"
    return {name: run.seq_len_fill_value for name, run in runners.items()}


def _plan(line: tuple[str, ...], arch: str, before: bool) -> tuple[Any, list[str]]:
    from graphfit.cli.options import read_pasted, resolve_values
    from graphfit.inputs import sglang_draft_default as rb
    from graphfit.planner.plan import plan

    saved = rb.rocm_by_class
    if before:
        rb.rocm_by_class = lambda *a: None  # type: ignore[assignment]
    try:
        values = {"gpu_memory_gb": "MI300X", "architecture": arch}
        resolved = resolve_values(values, {}, pasted=read_pasted(
            ["python", "-m", "sglang.launch_server", "--model-path", "org/model", *line],
            values))
    finally:
        rb.rocm_by_class = saved  # type: ignore[assignment]
    return plan(resolved.config()), list(resolved.notes)


def _fill(plan: Any, runner: str) -> int:
    from tests.oracle import sglang_compare as sc

    comp = plan.components[sc.GF_COMPONENT[runner]]
    return int(next(b for b in comp.buffers if b.name == "seq_lens").fill.value)


def fills_equal(line: tuple[str, ...], model_dir: str, *, before: bool = False) -> bool | None:
    """Whether graphfit's fill of every runner SGLang builds is SGLang's (None: SGLang
    refuses the line)."""
    sglang = _fills_sglang(line, model_dir)
    if isinstance(sglang, str):
        return None
    ours, _ = _plan(line, architecture(model_dir), before)
    return all(_fill(ours, name) == fill for name, fill in sglang.items())


def verdict(line: tuple[str, ...], model_dir: str, *, before: bool = False) -> str:
    from graphfit.planner.engines.sglang_rocm_default import UNKNOWN_BY_CLASS

    sglang = _fills_sglang(line, model_dir)
    if isinstance(sglang, str):
        return sglang
    arch = architecture(model_dir)
    ours, notes = _plan(line, arch, before)
    fills = {name: _fill(ours, name) for name in sglang}
    noted = any(NOTE in n for n in notes)
    if before or arch in UNKNOWN_BY_CLASS:
        if noted and set(fills.values()) == {1}:
            return "noted"
        return f"differ: {arch} not restated, fills {fills}, noted {noted}"
    if fills == sglang and not noted:
        return "agree"
    return f"differ: {arch} SGLang {sglang}, graphfit {fills}, noted {noted}"


LINES: tuple[tuple[str, ...], ...] = tuple(
    ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE",
     "--speculative-num-steps", "3", "--speculative-eagle-topk", str(topk),
     "--speculative-num-draft-tokens", str(drafts), *extra)
    for topk, drafts, extra in ((1, 4, ()), (2, 6, ()), (1, 4, ("--enable-multi-layer-eagle",)),
                                (1, 4, ("--prefill-attention-backend", "triton"))))

__all__ = ["LINES", "PLAIN_CLASSES", "architecture", "fills_equal", "model_dirs", "verdict"]
