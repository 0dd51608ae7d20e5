"""SGLang 0.5.23's answer on a Gemma 4 MoE target's build under the MoE runner flags (issue 23,
s69l; graphfit.planner.engines.sglang_gelu_target), shared by
tests/oracle/test_sglang_gelu_target_oracle.py and measure_sglang_gelu_target (not a test).

SGLang: its own resolution of the line, then, on the meta device under the published
record (the MoE flags seeded as the scheduler seeds them), its own Gemma4MoE block where
its own `Gemma4DecoderLayer._enable_moe_block` says the config has one
(models/gemma4_causal.py:640-653, 684-685): the harness of
tests.oracle.test_sglang_deepep_class_oracle.sglang. The target is a Llama-shaped
config.json under Gemma4ForCausalLM (as tests.oracle.sglang_post_capture_oracle writes one;
a `gemma4_text` config.json stops the oracle's resolution on transformers' per-layer
`head_dim` read), with or without the MoE fields. graphfit: its CLI on the pasted line with
--gpu-memory-gb H100 (the oracle's SM90, which JIT DeepGEMM reads). The two agree where
both start, or both refuse with graphfit naming deep_gemm.py:352 where SGLang's refusal
comes from DeepGemmRunnerCore.
"""

from __future__ import annotations

import functools
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle import test_sglang_deepep_class_oracle as dc

SITE = "moe_runner/deep_gemm.py"  # SGLang's assert; graphfit's reason names deep_gemm.py:352
MOE_FIELDS = {"enable_moe_block": True, "num_experts": 8, "top_k_experts": 2,
              "moe_intermediate_size": 64}
RUNNERS = ("deep_gemm", "deep_gemm", "triton", "auto")
A2AS = ("none", "none", "deepep", "mooncake")


@functools.cache
def model_dir(moe: bool, block: bool = True) -> Path:
    """A Gemma4ForCausalLM target directory, with MoE blocks or without (module docstring);
    `block` False: the MoE fields with `enable_moe_block` false (s69w: SGLang builds no
    Gemma4MoE, graphfit's config still reads MoE fields)."""
    so.oracle()
    root = Path(tempfile.mkdtemp(prefix="graphfit-gelu-target-")) / "model"
    sglang_stubs.write_model_dir(root, architecture="Gemma4ForCausalLM")
    data = json.loads((root / "config.json").read_text())
    off = {} if block else {"enable_moe_block": False}
    (root / "config.json").write_text(json.dumps({**data, **(MOE_FIELDS if moe else {}), **off}))
    return root


def _block(config: Any, quant: Any) -> None:
    """SGLang's own Gemma4MoE for layer 0, where its decoder layer builds one."""
    from sglang.srt.models.gemma4_causal import Gemma4DecoderLayer, Gemma4MoE

    text = getattr(config, "text_config", config)
    if Gemma4DecoderLayer._enable_moe_block(text):
        Gemma4MoE(text.hidden_size, 0, text, quant, prefix="model.layers.0.moe")


def line(a2a: str, runner: str, jit: bool, moe: bool = True, *extra: str
         ) -> tuple[str, ...]:
    """A line, its first word the marker `jit=1` / `jit=0` with `,dense` for the target
    without MoE blocks (`answers` strips it)."""
    return (f"jit={int(jit)}{'' if moe else ',dense'}", "--tp-size", "2", "--ep-size", "2",
            "--moe-a2a-backend", a2a, "--deepep-mode", "low_latency",
            "--moe-runner-backend", runner, *extra)


def draw(rng: random.Random) -> tuple[str, ...]:
    """One drawn line: the backend, the runner, JIT DeepGEMM, FP8 two times in five, the
    target without MoE blocks one time in six. JIT DeepGEMM is on under deepep: with it off,
    the Gemma 4 target's own DeepEPMoE asserts (ep_moe/layer.py:135-178) come after the
    runner's and are another rule's (s69w: `draw_deepep`)."""
    extra = ("--quantization", "fp8") if rng.random() < 0.4 else ()
    a2a, runner, jit = rng.choice(A2AS), rng.choice(RUNNERS), rng.random() < 0.5
    return line(a2a, runner, jit or a2a == "deepep", rng.random() >= 1 / 6, *extra)


DEEPEP_SITE = "ep_moe/layer.py"  # DeepEPMoE's asserts (s69w)
DEEPEP_A2AS = ("deepep", "deepep", "nixl", "mooncake", "none")
DEEPEP_RUNNERS = ("auto", "auto", "triton", "deep_gemm")
MODES = ("low_latency", "low_latency", "auto", "normal")


def deepep_line(a2a: str, runner: str, jit: bool, moe: bool | None, mode: str, *extra: str
                ) -> tuple[str, ...]:
    """`line` with --deepep-mode `mode` (issue 23, s69w); `moe` None: the MoE fields with
    `enable_moe_block` false (marker `,noblock`)."""
    drawn = list(line(a2a, runner, jit, moe is not False, *extra))
    if moe is None:
        drawn[0] += ",noblock"
    drawn[drawn.index("--deepep-mode") + 1] = mode
    return tuple(drawn)


def draw_deepep(rng: random.Random) -> tuple[str, ...]:
    """One drawn line for the Gemma 4 MoE target's own DeepEPMoE asserts (s69w,
    graphfit.planner.engines.sglang_deepep_class.GEMMA4_MOE): a legacy a2a backend four
    times in five, JIT DeepGEMM off three times in four, FP8 three times in four (the
    low-latency assert needs a quantization), the DeepEP mode, the target without MoE
    blocks one time in six."""
    a2a, runner, mode = rng.choice(DEEPEP_A2AS), rng.choice(DEEPEP_RUNNERS), rng.choice(MODES)
    jit, moe = rng.random() < 0.25, rng.random() >= 1 / 6
    extra = ("--quantization", "fp8") if rng.random() < 0.75 else ()
    return deepep_line(a2a, runner, jit, moe, mode, *extra)


# s70h: pplx (needs attention DP, arg_groups/moe_hook.py:588-594; its per-rank dispatch
# tokens within 128, :611-621 and token_dispatcher/pplx.py:290-295), the LoRA MoE runners
# (they need --lora-backend triton_v2, arg_groups/lora_hook.py:204-207) and an override of
# `enable_moe_block`
PPLX = ("--enable-dp-attention", "--attn-dp-size", "2", "--chunked-prefill-size", "-1",
        "--cuda-graph-max-bs-decode", "64")
LORA = ("--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all",
        "--lora-backend", "triton_v2")
LORA_RUNNERS = ("lora_triton", "lora_marlin", "lora_cutedsl", "triton", "auto")
OVERRIDE = "--json-model-override-args"


def draw_runner(rng: random.Random) -> tuple[str, ...]:
    """One drawn line for s70h's three cases, a third each: pplx (runner auto / deep_gemm),
    a LoRA runner, or `enable_moe_block` switched by --json-model-override-args (on a target
    with the MoE fields and the block off, or on, under deep_gemm / triton / auto); FP8 two
    times in five where the case allows it; the target with MoE blocks, without (`,noblock`)
    or dense."""
    case, fp8 = rng.randrange(3), rng.random() < 0.4
    extra: tuple[str, ...] = ("--quantization", "fp8") if fp8 else ()
    moe = rng.choice((True, True, None, False))
    jit = rng.random() < 0.5
    if case == 0:
        return deepep_line("pplx", rng.choice(("auto", "deep_gemm")), jit, moe,
                           "low_latency", *PPLX, *extra)
    if case == 1:
        return deepep_line("none", rng.choice(LORA_RUNNERS), jit, moe, "low_latency",
                           *LORA, *extra)
    on = rng.random() < 0.5
    return deepep_line("none", rng.choice(("deep_gemm", "deep_gemm", "triton", "auto")), jit,
                       rng.choice((True, None)), "low_latency", OVERRIDE,
                       json.dumps({"enable_moe_block": on}), *extra)


def _overridden(model: Path, argv: tuple[str, ...]) -> Callable[[Any, Any], None]:
    """`_block` on the config SGLang's ModelConfig reads: its own `get_config` with the
    line's --json-model-override-args (configs/model_config.py:612-627;
    utils/hf_transformers/config.py:405-424), where the line gives them (s70h: an override
    switching `enable_moe_block`)."""
    flag = "--json-model-override-args"
    if flag not in argv:
        return _block
    args = json.loads(argv[argv.index(flag) + 1])

    def block(config: Any, quant: Any) -> None:
        from sglang.srt.utils.hf_transformers_utils import get_config

        _block(get_config(str(model), trust_remote_code=False, model_override_args=args),
               quant)

    return block


def answers(drawn: tuple[str, ...]) -> tuple[str | None, tuple[int, str]]:
    """(SGLang's refusal or None, graphfit's (exit status, error line)) for a `line`."""
    marks = drawn[0].split(",")
    jit, model = "jit=1" in marks, model_dir("dense" not in marks, "noblock" not in marks)
    return (dc.sglang(model, drawn[1:], jit, block=_overridden(model, drawn[1:])),
            dc.graphfit(model, drawn[1:], jit, "H100"))


def agree(theirs: str | None, code: int, said: str) -> bool:
    """Both start, or both refuse, graphfit naming deep_gemm.py:352 where SGLang's refusal
    is DeepGemmRunnerCore's and ep_moe/layer.py:1xx where it is DeepEPMoE's (s69w)."""
    if (theirs is None) != (code == 0):
        return False
    if theirs is not None and DEEPEP_SITE in theirs:  # s69w: DeepEPMoE's asserts
        return "ep_moe/layer.py:1" in said
    return theirs is None or SITE not in theirs or "deep_gemm.py:352" in said


def verdict(drawn: tuple[str, ...]) -> tuple[str, str | None]:
    """("agree" / "differ" / "not modelled", the detail of a difference) for one line."""
    theirs, (code, said) = answers(drawn)
    if code != 0 and "not modelled" in said:
        return "not modelled", None
    if agree(theirs, code, said):
        return "agree", None
    return "differ", f"{drawn}: SGLang {theirs and theirs[-100:]}; graphfit {code} {said[:160]}"


__all__ = ["A2AS", "DEEPEP_A2AS", "DEEPEP_RUNNERS", "DEEPEP_SITE", "MODES", "MOE_FIELDS",
           "RUNNERS", "SITE", "agree", "answers", "deepep_line", "draw", "draw_deepep", "line",
           "model_dir", "verdict", "LORA", "LORA_RUNNERS", "OVERRIDE", "PPLX", "draw_runner"]
