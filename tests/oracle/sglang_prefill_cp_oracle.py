"""Prefill context parallelism (issue 23 s51c): SGLang 0.5.23's own resolution of
`--enable-prefill-cp` / `--cp-strategy` lines vs graphfit's reading of the same pasted line
(graphfit.inputs.sglang_prefill_cp). A line SGLang refuses must be refused with SGLang's
sentence; a line SGLang serves must be planned as SGLang's runners are built (the DCP oracle's
comparison: ladders, padding, buffers, prefill-graph backend) or refused as not modelled.

The targets: pc.model_dir's Llama-shaped MHA (`llama`), DeepSeek-V3-shaped MLA (`mla`) and
DeepSeek-V4 (`dsv4`) directories, and the same config.json under the classes SGLang's CP
rules name (MiMo-V2, HYV4, DeepSeek-V3.2, LongCat-Flash's model_type)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_stubs

Case = dc.Case
GPU = "H100"
# name: (base directory, architecture, extra config.json fields)
VARIANTS: dict[str, tuple[str, str, dict[str, object]]] = {
    # MiMo-V2's SWA / full layer pattern (configs/model_config.py:2723-2730)
    "mimo": ("llama", "MiMoV2FlashForCausalLM", {"hybrid_layer_pattern": [0, 1] * 64}),
    "hyv4": ("mla", "HYV4ForCausalLM", {}),
    "v32": ("mla", "DeepseekV32ForCausalLM", {}),
    "longcat": ("llama", "LlamaForCausalLM", {"model_type": "longcat_flash"}),
}
MODELS = ("llama", "mla", "dsv4", *VARIANTS)
STRATEGIES = (None, "zigzag", "interleave")


def model_dir(name: str) -> str:
    """pc.model_dir's directory, or a VARIANTS one registered there."""
    if name in VARIANTS and name not in pc._MODELS:
        base, arch, fields = VARIANTS[name]
        root = Path(tempfile.mkdtemp(prefix="graphfit-prefill-cp-")) / name
        if base == "mla":
            sglang_stubs.write_mla_model_dir(root)
        else:
            sglang_stubs.write_model_dir(root)
        data = json.loads((root / "config.json").read_text())
        (root / "config.json").write_text(json.dumps({**data, "architectures": [arch],
                                                       **fields}))
        pc.register(name, str(root))
    return pc.model_dir(name)


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines: TP, attention CP, strategy, DCP, a draft, the attention
    backend and pipeline parallelism drawn."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        tp = rng.choice((1, 2, 4, 8))
        argv = ["--enable-prefill-cp", "--tp-size", str(tp), "--max-running-requests", "24"]
        strategy = rng.choice(STRATEGIES)
        if strategy is not None:
            argv += ["--cp-strategy", strategy]
        if rng.random() < 0.4:
            argv += ["--attn-cp-size", str(rng.choice([d for d in (1, 2, 4) if tp % d == 0]))]
        if rng.random() < 0.15:
            argv += ["--dcp-size", "2"]
        if rng.random() < 0.15:
            argv += list(dc.DRAFTS[0])
        if rng.random() < 0.3:
            argv += ["--attention-backend", rng.choice(("flashinfer", "fa3", "triton"))]
        if rng.random() < 0.1:
            argv += ["--pp-size", "2"]
        # the Llama-shaped target three times as often: the lines graphfit plans
        out.append((tuple(argv), GPU, rng.choice((*MODELS, "llama", "llama"))))
    return out


def sglang_reason(text: str) -> str:
    """SGLang's sentence without the exception type, and without the values HYV4's echoes
    ("Got architecture=... and enable_prefill_cp=True.", deepseek_v2.py:66-67), which graphfit
    leaves out of its one-line error."""
    if text.startswith(("ValueError: ", "AssertionError: ")):
        text = text.split(": ", 1)[1]
    return text.split(" Got architecture=", 1)[0]


def compare(case: Case) -> tuple[str, list[str]]:
    """("same refusal" | "agree" | "not modelled" | "differs", the differences)."""
    model_dir(case[2])
    sg = dc.sglang_answer(case)
    gf, _ = dc.graphfit_answer(case)
    if sg.rejected is not None:
        theirs = sglang_reason(sg.rejected)
        if gf.rejected is not None and theirs in gf.rejected:
            return "same refusal", []
        if gf.rejected is None:
            return "differs", [f"SGLang refuses ({theirs[:160]}); graphfit plans"]
        return "differs", [f"SGLang refuses ({theirs[:160]}); graphfit: {gf.rejected}"]
    if gf.rejected is not None:
        if dc.NOT_MODELLED in gf.rejected:
            return "not modelled", [gf.rejected]
        return "differs", [f"SGLang serves; graphfit refuses: {gf.rejected}"]
    return dc.compare(case)
