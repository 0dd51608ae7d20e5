"""Prefill context parallelism on DeepSeek-family targets (issue 23 s54c): lines that reach
SGLang 0.5.23's DSA / MLA CP resolution (model_overrides/deepseek_v2.py:106-145, 191-210),
the context-parallel hook's width asserts (parallel_hook.py:156-192), CP-TP group sharing
(cp_tp_group_sharing_hook.py:27-99), MiMo-V2's text-only rule (parallel_hook.py:141-146) and
`--prefill-only-disable-kv-cache` (kv_cache_hook.py:865-930), compared with SGLang's own
resolution by sglang_prefill_cp_oracle.compare (a refusal must carry SGLang's sentence).

The targets, beside that oracle's `mla` (DeepSeek-V3: MLA branch) and `v32`: `dsa` (the MLA
directory as GlmMoeDsaForCausalLM with an indexer: `is_deepseek_dsa`,
configs/model_config.py:191-212), `glm5` (the mamba-memory oracle's Glm5Next, a CP-TP sharing
architecture) and `mimo_mm` (MiMoV2ForCausalLM with a text_config, vision_config and
audio_config: served multimodal, configs/model_config.py:706-717, 809-828)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_stubs

Case = cp.Case
GPU = cp.GPU
FAMILY = ("mla", "dsa", "v32", "glm5", "mimo_mm")


def model_dir(name: str) -> str:
    """cp.model_dir's directory, or one of this module's targets registered in pc."""
    if name in cp.VARIANTS or name in ("llama", "mla", "dsv4"):
        return cp.model_dir(name)
    if name not in pc._MODELS:
        root = Path(tempfile.mkdtemp(prefix="graphfit-prefill-cp-dsa-")) / name
        if name in ("glm5", "qwen4"):  # qwen4: Qwen4-Exp, the other CP-TP sharing model
            from tests.oracle import sglang_mamba_memory_oracle as mm

            pc.register(name, mm.model_dir(mm.GLM5 if name == "glm5" else mm.QWEN4_EXP))
            return pc.model_dir(name)
        if name == "dsa":
            sglang_stubs.write_mla_model_dir(root)
            data = json.loads((root / "config.json").read_text())
            data |= {"architectures": ["GlmMoeDsaForCausalLM"], "index_topk": 2048,
                     "index_head_dim": 128, "index_n_heads": 64}
        else:  # mimo_mm
            sglang_stubs.write_model_dir(root)
            text = json.loads((root / "config.json").read_text())
            text["hybrid_layer_pattern"] = [0, 1] * 64  # read off the text config
            data = {"architectures": ["MiMoV2ForCausalLM"], "model_type": text["model_type"],
                    "text_config": text, "vision_config": {}, "audio_config": {},
                    **{k: text[k] for k in text if k not in ("architectures",)},
                    "hybrid_layer_pattern": [0, 1] * 64}
        (root / "config.json").write_text(json.dumps(data))
        pc.register(name, str(root))
    return pc.model_dir(name)


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines on the FAMILY targets: TP (16 too), attention DP / DP /
    attention CP / MoE DP widths, the strategy, and now and then a draft, a disaggregation
    mode, pipeline parallelism, aiter fusion or the prefill-only no-KV-cache flags (not with
    `--chunked-prefill-size -1` nor `--language-only`, which graphfit's flag readers refuse as
    not modelled before the prefill-CP reading: graphfit.inputs.sglang LINE_KEYS)."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        tp = rng.choice((1, 2, 4, 8, 16))
        argv = ["--enable-prefill-cp", "--tp-size", str(tp), "--max-running-requests", "24"]
        strategy = rng.choice((None, "zigzag", "interleave", "interleave"))
        if strategy is not None:
            argv += ["--cp-strategy", strategy]
        for flag, widths, chance in (("--attn-cp-size", (1, 2, 4, 3), 0.4),
                                     ("--attn-dp-size", (2, 4), 0.25), ("--dp-size", (2, 3), 0.2),
                                     ("--moe-dp-size", (2, 4), 0.15)):
            if rng.random() < chance:
                argv += [flag, str(rng.choice(widths))]
        extras = (
            ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "1",
             "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "2"),
            ("--disaggregation-mode", "prefill"), ("--pp-size", "2"),
            ("--enable-aiter-allreduce-fusion",), ("--enable-mixed-chunk",),
            ("--prefill-only-disable-kv-cache", "--is-embedding"),
            ("--prefill-only-disable-kv-cache", "--is-embedding", "--disable-radix-cache"),
            ("--prefill-only-disable-kv-cache", "--kv-cache-dtype", "mxfp8"))
        if rng.random() < 0.3:
            argv += list(rng.choice(extras))
        out.append((tuple(argv), GPU, rng.choice(FAMILY)))
    return out


def compare(case: Case) -> tuple[str, list[str]]:
    """cp.compare on this module's targets; a line both plan must also have SGLang's resolved
    mem_fraction_static (the memory hook reads the line's widths before the family override
    declares its own, issue 23 s60p). graphfit reads the line with the GPU flag, as its CLI
    does (issue 23 s66p: the attention hook's refusals come before the CP hook's on it)."""
    model_dir(case[2])
    from tests.oracle import sglang_prefill_cp_rocm_order_oracle as ro

    # graphfit words the attention hook's backend refusals as its other backend checks do
    # (ro.same_reason holds it to their place)
    outcome, diffs = cp.compare(case, cli=True, same=ro.same_reason)
    if outcome != "agree":
        return outcome, diffs
    from tests.oracle import sglang_dcp_oracle as dc

    sg = dc.sglang_answer(case)
    gf, _ = dc.graphfit_answer(case, cli=True)
    from sglang.srt.arg_groups.overrides import resolving_view  # on the oracle's path

    theirs = float(resolving_view(sg.resolved.record).mem_fraction_static)
    ours = gf.plan.config.mem_fraction_static
    if ours is None or abs(theirs - ours) > 1e-9:
        return "differs", [f"mem_fraction_static: SGLang {theirs}, graphfit {ours}"]
    return "agree", []
