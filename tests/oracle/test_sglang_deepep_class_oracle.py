"""graphfit == SGLang 0.5.23 on the DeepEP-class MoE's JIT-DeepGEMM assert for the model
classes built through `get_moe_impl_class` (layers/moe/ep_moe/layer.py:168-178, 352-365;
graphfit.planner.engines.sglang_deepep_class).

SGLang: its own resolution of the line (tests.oracle.sglang_oracle.resolve) on a small
Qwen3-MoE config.json, then, where that starts, the model's own MoE block
(`Qwen3MoeSparseMoeBlock`, models/qwen3_moe.py:235-280, which calls `get_moe_impl_class`)
built on the meta device under the published layout, with JIT DeepGEMM set as the line's
SGLANG_ENABLE_JIT_DEEPGEMM says (on: an SM 90 device with deep_gemm, the oracle's glue;
tests.oracle.sglang_minimax_target_oracle._deepep_glue, which also reports deep_ep
installed). graphfit: its CLI on the pasted line. Each line must be refused by both (with
SGLang's assert sentence where that is what SGLang raises) or started by both.
"""

from __future__ import annotations

import contextlib
import io
import random
import types
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_minimax_target_oracle as mt  # noqa: E402
from tests.oracle import sglang_mooncake_build as mb  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

ASSERT = "mode requires deep_gemm"
# (what SGLang's build failure says, what graphfit's refusal must name)
BUILD_ERRORS = ((ASSERT, ASSERT),
                ("NotImplementedError:  @ layers/moe/token_dispatcher/mooncake.py:344",
                 "mooncake.py:343-344"))
A2AS = ("none", "deepep", "deepep", "deepep_v2", "mooncake", "mooncake")
MODES = ("auto", "auto", "low_latency", "normal")
QUANTS = (None, "fp8", "fp8")
RUNNERS = ("auto", "auto", "triton", "deep_gemm")


def _jit(jit: bool) -> list[tuple[object, str, object]]:
    """ENABLE_JIT_DEEPGEMM as the line sets it, for the resolution hooks that read it
    (serving_hook.py:481; the model build reads it through mt._deepep_glue)."""
    from sglang.srt.layers import deep_gemm_wrapper

    saved: list[tuple[object, str, object]] = [
        (deep_gemm_wrapper, "ENABLE_JIT_DEEPGEMM", deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM)]
    deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM = jit
    return saved


def sglang(model: Path, argv: tuple[str, ...], jit: bool) -> str | None:
    """SGLang's refusal (resolution, or the MoE block's build), None where it builds."""
    import torch

    with sglang_stubs.stubbed():
        saved = _jit(jit)
        try:
            r = so.resolve(argv, model=str(model))
        finally:
            for mod, name, value in saved:
                setattr(mod, name, value)
    if isinstance(r, so.Rejected):
        # the oracle's shared Mooncake dispatcher build (tests.oracle.sglang_mooncake_build)
        where = "build" if r.text.endswith("(at model build)") else "resolution"
        return f"{where}: {r.text}"
    with so.sglang_stubs.stubbed(), so.published(r):
        import sglang.srt.models.qwen3_moe as q3
        from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
        from sglang.srt.runtime_context import get_parallel
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = get_config(str(model), trust_remote_code=False)
        tp = int(argv[argv.index("--tp-size") + 1])
        group = types.SimpleNamespace(world_size=tp, rank_in_group=0, cpu_group=None,
                                      device_group=None)
        saved = mt._deepep_glue(jit)
        initialize_dp_attention_flags(None)
        try:
            ep, moe_tp = get_parallel().moe_ep_size, get_parallel().moe_tp_size
            ep_group = group if ep == tp else types.SimpleNamespace(
                world_size=ep, rank_in_group=0, cpu_group=None)
            moe_tp_group = group if moe_tp == tp else types.SimpleNamespace(
                world_size=moe_tp, rank_in_group=0, cpu_group=None)
            with mb.glue(), get_parallel().override(tp_rank=0, attn_tp_rank=0, moe_ep_rank=0,
                                         moe_tp_rank=0, tp_group=group,
                                         moe_tp_group=moe_tp_group, moe_ep_group=ep_group), \
                    torch.device("meta"):
                quant = mt._quant_config(r, str(model)) if "--quantization" in argv else None
                q3.Qwen3MoeSparseMoeBlock(layer_id=0, config=config, quant_config=quant,
                                          prefix="model.layers.0.mlp")
        except (AssertionError, ValueError, TypeError, NotImplementedError) as exc:
            return f"build: {type(exc).__name__}: {exc} @ {mt._site(exc)}"
        finally:
            for mod, name, value in saved:
                setattr(mod, name, value)
    return None


def graphfit(model: Path, argv: tuple[str, ...], jit: bool) -> tuple[int, str]:
    """(exit status, the last `error:` line) of graphfit's CLI on the pasted line."""
    from graphfit.cli.application import main

    env = () if jit else ("SGLANG_ENABLE_JIT_DEEPGEMM=0",)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", *env, "sglang", "serve",
                  "--model-path", str(model), *argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def line(rng: random.Random) -> tuple[tuple[str, ...], bool]:
    """One drawn line and whether JIT DeepGEMM is on."""
    tp = rng.choice((2, 4))
    out = ["--tp-size", str(tp), "--ep-size", str(tp), "--moe-a2a-backend", rng.choice(A2AS),
           "--deepep-mode", rng.choice(MODES), "--moe-runner-backend", rng.choice(RUNNERS)]
    quant = rng.choice(QUANTS)
    if quant:
        out += ["--quantization", quant]
    return tuple(out), rng.random() < 0.3


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return sglang_stubs.write_moe_model_dir(tmp_path_factory.mktemp("deepep") / "moe")


def _agree(model: Path, argv: tuple[str, ...], jit: bool) -> str | None:
    """None where both sides agree, else what differs."""
    theirs = sglang(model, argv, jit)
    ours = graphfit(model, argv, jit)
    for said, named in BUILD_ERRORS:
        if theirs is not None and theirs.startswith("build:") and said in theirs:
            if ours[0] == 0 or named not in ours[1]:
                return f"SGLang {theirs[:120]}; graphfit exit {ours[0]} {ours[1][:120]}"
            return None
    if (ours[0] != 0) != (theirs is not None):
        return f"SGLang {theirs and theirs[:120]}; graphfit exit {ours[0]} {ours[1][:120]}"
    if ours[0] != 0 and any(named in ours[1] for _, named in BUILD_ERRORS):
        return f"graphfit names a build error where SGLang says {theirs and theirs[:120]}"
    return None


KNOWN = (  # the rule's clauses, each way (jit False: SGLANG_ENABLE_JIT_DEEPGEMM=0)
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--quantization", "fp8"), True),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--deepep-mode", "low_latency", "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--deepep-mode", "normal", "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep_v2",
      "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
      "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
      "--deepep-mode", "low_latency", "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
      "--deepep-mode", "low_latency", "--quantization", "fp8"), True),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake"), True),
)


def test_known_lines_agree(model: Path) -> None:
    wrong = [f"{' '.join(a)} jit={j}: {d}" for a, j in KNOWN if (d := _agree(model, a, j))]
    assert not wrong, "\n".join(wrong)
    # the rule is exercised: SGLang raises the assert on the first line
    first = sglang(model, *KNOWN[0])
    assert first is not None and ASSERT in first, first


def test_drawn_lines_agree(model: Path) -> None:
    rng = random.Random(45)
    wrong = []
    for _ in range(16):
        argv, jit = line(rng)
        said = _agree(model, argv, jit)
        if said:
            wrong.append(f"{' '.join(argv)} jit={jit}: {said}")
    assert not wrong, "\n".join(wrong)
