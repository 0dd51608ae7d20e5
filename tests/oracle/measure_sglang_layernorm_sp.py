"""LayerNorm sequence parallelism's start-up checks (issue 23, s64k;
graphfit.planner.engines.sglang_layernorm_sp) over drawn lines: `--enable-layernorm-sp` and
`--enable-megamoe-for-layernorm-sp` on Muse Spark (BF16 or ModelOpt NVFP4), Qwen3ForCausalLM
and Qwen3-MoE classes (the Qwen3-MoE shapes of `sglang_moe_a2a_compare`), with drawn TP / EP,
all-to-all backend, MoE runner, attention DP, PP, mixed chunking, NGRAM, prefill chunk and
SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK.

SGLang: its argument pipeline and decode runners (`sglang_moe_a2a_compare.sglang`). graphfit:
its CLI on the pasted line. A line agrees when every compared aspect agrees
(`sglang_moe_a2a_compare.compare`); graphfit's "not modelled" is counted apart.

    python -m tests.oracle.measure_sglang_layernorm_sp [COUNT] [SEED] [BEFORE_ROOT]

prints this checkout's counts, then BEFORE_ROOT's (default /work/main) on the same lines."""

from __future__ import annotations

import logging
import random
import sys
from collections import Counter
from typing import Any

from tests.oracle.measure_root import main_with_before

MUSE = "MuseSparkForConditionalGeneration"
BUDGET = "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"
SP, MEGA = "--enable-layernorm-sp", "--enable-megamoe-for-layernorm-sp"
MODELS = ("muse", "muse", "muse_fp4", "qwen3", "qwen3_moe")


def _model(name: str) -> str:
    from tests.oracle import sglang_moe_a2a_compare as mc

    if name == "muse":
        return mc.class_model_dir(MUSE)
    if name == "muse_fp4":
        return mc.quantized_model_dir("NVFP4", MUSE)
    if name == "qwen3":
        return mc.class_model_dir("Qwen3ForCausalLM")
    return mc.model_dir()


def draw(rng: Any) -> tuple[str, ...]:
    """One line (module docstring): mostly near Muse Spark's accepted shape, one knob off."""
    model = rng.choice(MODELS)
    words: list[str] = []
    if rng.random() < 0.5:
        words.append(f"{BUDGET}={rng.choice(('0', '-1', '256', '1024', '2048', '16384'))}")
    tp = rng.choice((1, 2, 4, 4, 8, 8))
    words += ["--model-path", _model(model), "--tp-size", str(tp)]
    if rng.random() < 0.5:
        words += ["--ep-size", str(rng.choice((1, tp, tp, 4, 8)))]
    if rng.random() < 0.9:
        words.append(SP)
    if rng.random() < (0.3 if model == "muse_fp4" else 0.7):
        words.append(MEGA)
    if SP not in words and MEGA not in words:
        words.append(MEGA)  # every line carries one of the two flags
    if rng.random() < 0.85:
        words += ["--moe-runner-backend", rng.choice(("flashinfer_trtllm",) * 4
                                                      + ("triton", "auto"))]
    if rng.random() < 0.5:
        words += ["--moe-a2a-backend", rng.choice(("none", "flashinfer", "flashinfer",
                                                   "deepep"))]
    if model == "muse_fp4" or rng.random() < 0.1:
        words += ["--gpu-memory-gb", "B200"]
    if model == "muse_fp4" and rng.random() < 0.5:
        words.insert(0, "SGLANG_MOE_NVFP4_DISPATCH=0")
    extras = (("--attn-dp-size", "2"), ("--pp-size", "2"), ("--enable-mixed-chunk",),
              ("--speculative-algorithm", "NGRAM"))
    for extra in extras:
        if rng.random() < 0.06:
            words += extra
    if rng.random() < 0.4:
        words += ["--chunked-prefill-size", rng.choice(("2048", "8192", "16384", "65536"))]
    return tuple(words)


def hook_refusal(text: str | None) -> bool:
    """Whether SGLang's refusal is handle_layernorm_sp's (its messages name the flag or
    Muse MegaMoE)."""
    return text is not None and ("layernorm-sp" in text or "Muse MegaMoE" in text)


def answers(line: tuple[str, ...]) -> tuple[str | None, str | None, list[str]]:
    """(SGLang's refusal, graphfit's, the differing aspects' details) for one line. graphfit
    first. SGLang's FlashInfer A2A hook sets SGLANG_MOE_NVFP4_DISPATCH in `os.environ` itself
    (arg_groups/moe_hook.py:497-507); `mc.sglang` puts back what SGLang writes per line
    (environ_patch.sglang_environ, s65x), so no line sees another's."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    logging.disable(logging.WARNING)
    gf = mc.graphfit_cli(line)
    sg = mc.sglang(line)
    found = [d.detail for ds in mc.compare(line).values() for d in ds]
    return sg.rejected, gf.rejected, found


def lines(count: int, seed: int) -> list[tuple[str, ...]]:
    rng = random.Random(seed)
    return [draw(rng) for _ in range(count)]


def measure(count: int, seed: int) -> dict[str, int]:
    """Print and return the counts over `lines(count, seed)`."""

    logging.disable(logging.WARNING)
    counts: Counter[str] = Counter({"agree": 0, "differ": 0, "not modelled": 0})
    kinds: Counter[str] = Counter()
    shown: list[str] = []
    for line in lines(count, seed):
        theirs, ours, found = answers(line)
        kinds["SGLang refuses" if theirs is not None else "SGLang starts"] += 1
        said = ours or ""
        if hook_refusal(theirs):
            kinds["SGLang's SP hook refuses"] += 1
            kinds["graphfit names the hook too"] += "layernorm_sp_hook.py" in said
        if found and "not modelled" in said:
            counts["not modelled"] += 1
        elif found:
            counts["differ"] += 1
            shown.append(f"{' '.join(w for w in line if not w.startswith('/'))} :: "
                         f"{found[0][:200]}")
        else:
            counts["agree"] += 1
    print(dict(counts), dict(kinds))
    for text in shown[:12]:
        print("  " + text)
    return dict(counts)


def main(argv: list[str]) -> int:
    return main_with_before("measure_sglang_layernorm_sp", measure, argv, 60, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
