"""CP-TP group sharing (issue 23 s63p): prefill-CP lines on the two architectures whose CP
group is the TP group (Glm5Next, Qwen4-Exp; arg_groups/cp_tp_group_sharing_hook.py:21-24,
122-130), compared with SGLang 0.5.23 twice:

* its resolution and decode runners on the fake GPU (sglang_prefill_cp_dsa_oracle.compare:
  ladders, padding, components, buffers, fills, the prefill backend, mem_fraction_static);
* its own state-cache solve with the weights' size given (sglang_mamba_memory_oracle.sized:
  `KVCacheConfigurator._profile_available_bytes` on SGLang's config class, whose
  `mamba2_cache_params` reads `linear_attn_tp_size()`, runtime_context.py:477-486), against
  graphfit's plan of the same pasted line: the state slots and the static fraction.

The targets: the mamba-memory oracle's Glm5Next in its two KDA forms (`glm5`: layer_types +
linear_num_heads; `glm5_attn`: a top-level linear_attn_config) and its Qwen4-Exp."""

from __future__ import annotations

import random
import shlex
from typing import Any

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa

Case = dsa.Case
GPU = dsa.GPU
WEIGHTS_GB = 20.0
SHAPES = {"glm5": lambda: mm.GLM5, "glm5_attn": lambda: mm.GLM5_ATTN,
          "qwen4": lambda: mm.QWEN4_EXP}
# the strategy each architecture's sharing requires (cp_tp_group_sharing_hook.py:41-47)
STRATEGY = {"glm5": "interleave", "glm5_attn": "interleave", "qwen4": "zigzag"}


def model_dir(name: str) -> str:
    """The target's directory, registered for the pasted line (pc) and dsa.compare."""
    if name not in pc._MODELS:
        pc.register(name, mm.model_dir(SHAPES[name]()))
    return pc.model_dir(name)


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines on the sharing targets: TP 2 / 4 / 8, the strategy (mostly
    the architecture's own), `--attn-cp-size` (none, TP, or another width), and now and then
    a memory flag, an attention / prefill-graph backend or a flag the hook refuses."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        model = rng.choice(tuple(SHAPES))
        tp = rng.choice((2, 4, 8))
        strategy = STRATEGY[model] if rng.random() < 0.85 else rng.choice(
            ("zigzag", "interleave"))
        argv = ["--enable-prefill-cp", "--tp-size", str(tp), "--max-running-requests",
                str(rng.choice((24, 64))), "--cp-strategy", strategy]
        cp = rng.choice((None, tp, tp, tp, 1, tp // 2))
        if cp is not None:
            argv += ["--attn-cp-size", str(cp)]
        extras = (("--mem-fraction-static", "0.8"), ("--mamba-full-memory-ratio", "0.5"),
                  ("--attention-backend", "fa3"), ("--cuda-graph-backend-prefill", "breakable"),
                  ("--cuda-graph-backend-prefill", "disabled"), ("--enable-mixed-chunk",),
                  ("--moe-dp-size", "2"))
        if rng.random() < 0.4:
            argv += list(rng.choice(extras))
        out.append((tuple(argv), GPU, model))
    return out


def sglang_state(case: Case) -> Any:
    """SGLang's state cache on this rank with WEIGHTS_GB of weights (mm.Sized), or the text
    of its refusal."""
    argv, gpu, model = case
    gb = dc.GPUS[gpu][0]
    resolved = mm.resolve(argv, gb, SHAPES[model]())
    if not isinstance(resolved, so.Resolved):
        return resolved.text
    return mm.sized(resolved, gb, WEIGHTS_GB)


def graphfit_config(case: Case) -> Any:
    """graphfit's planned config of the pasted line with WEIGHTS_GB of weights (ConfigError
    where it refuses)."""
    import graphfit
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    argv, gpu, model = case
    line = pc.graphfit_line(argv, model, None)
    config = resolve_values({"gpu_memory_gb": gpu, "weights_gb": WEIGHTS_GB}, environ={},
                            pasted=commandline.read([shlex.join(line)])).config()
    return graphfit.plan(config).config


def state_diffs(theirs: Any, slots: int | None, fraction: float | None) -> list[str]:
    """The state slots and static fraction where they differ from SGLang's (mm.Sized)."""
    out = []
    if slots != theirs.cache_size:
        out.append(f"state slots: SGLang {theirs.cache_size}, graphfit {slots}")
    if fraction != theirs.mem_fraction_static:
        out.append(f"mem_fraction_static: SGLang {theirs.mem_fraction_static}, "
                   f"graphfit {fraction}")
    return out


def compare(case: Case) -> tuple[str, list[str]]:
    """dsa.compare's outcome; a line both plan must also have SGLang's state slots and
    fraction under WEIGHTS_GB of weights."""
    model_dir(case[2])
    outcome, diffs = dsa.compare(case)
    if outcome != "agree":
        return outcome, diffs
    theirs = sglang_state(case)
    if isinstance(theirs, str):
        return "differs", [f"SGLang's state solve refuses: {theirs[:160]}"]
    ours = graphfit_config(case)
    found = state_diffs(theirs, ours.mamba_memory_slots, ours.mem_fraction_static)
    return ("differs" if found else "agree"), found
