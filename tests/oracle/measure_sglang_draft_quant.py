"""Before / after figures for the draft model's quantization (issue 23, s47r):

    python -m tests.oracle.measure_sglang_draft_quant [LINES]

Lines: an EAGLE line with an unquantized local draft (bfloat16 or float16 config), the draft
flag (`--speculative-draft-model-quantization`, every CUDA choice) or the target's flag
inherited on a quantized target checkpoint, on a named GPU; LINES of them drawn with a fixed
seed (default: all). Each is run once through SGLang (tests.oracle.sglang_draft_quant) and
twice through graphfit: "before" with the input rule and the planner check switched off (as on
main), "after" with them. Lines SGLang cannot answer in this process (humming-kernels, the
TP rank quark_int4fp8_moe's class reads) are counted apart.

    python -m tests.oracle.measure_sglang_draft_quant quantized [LINES]

The same on quantized draft checkpoints (issue 23 s50r): an AWQ (4 and 8 bits), GPTQ, FP8 or
ModelOpt NVFP4 draft config in bfloat16 or float16, no flag or a draft flag, on a named GPU;
"before" has only the quantized-draft reading switched off (main: nothing checked)."""

from __future__ import annotations

import itertools
import random
import sys
from collections import Counter
from unittest import mock

from graphfit.inputs import sglang_cli
from graphfit.planner.engines import sglang as sglang_engine
from tests.oracle import sglang_draft_quant as dq
from tests.oracle import sglang_draft_shape as ds
from tests.oracle import sglang_quant_capability_compare as cc

GPUS = ("T4", "A100", "L4", "H100", "B200")
DRAFT_FLAGS = ("auto-round", "auto-round-int8", "awq", "awq_marlin", "bitsandbytes",
               "compressed-tensors", "fp8", "gguf", "gptq", "gptq_marlin", "mlx_q4",
               "modelopt", "modelopt_fp4", "modelopt_fp8", "modelopt_mixed", "modelslim",
               "moe_wna16", "mxfp4", "mxfp8", "mxfp_w4a8", "nvfp4_online", "petit_nvfp4",
               "quark", "quark_mxfp4", "unquant", "w4afp8", "w8a8_fp8", "w8a8_int8", "humming")
# (target layout, --quantization) pairs the draft inherits
INHERITED = (("modelopt_nvfp4", "modelopt"), ("modelopt_nvfp4", "modelopt_fp4"),
             ("awq_4bit", "awq_marlin"), ("awq_4bit", "moe_wna16"), ("fp8_block", "fp8"),
             ("modelopt_fp8", "modelopt"), ("compressed", "compressed-tensors"),
             ("compressed", "w8a8_int8"), ("mxfp4", "mxfp4"), ("gptq_4bit", "gptq_marlin"))


def lines() -> list[tuple[tuple[str, ...], str, str | None]]:
    """(argv, GPU, target directory or None) for every line of the grid."""
    drafts = (ds.draft("LlamaForCausalLMEagle", torch_dtype="bfloat16"),
              ds.draft("LlamaForCausalLMEagle", torch_dtype="float16"))
    out: list[tuple[tuple[str, ...], str, str | None]] = []
    base = ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path")
    for flag, gpu, draft in itertools.product(DRAFT_FLAGS, GPUS, drafts):
        out.append(((*base, draft, "--speculative-draft-model-quantization", flag), gpu, None))
    for (layout, flag), gpu, draft in itertools.product(INHERITED, GPUS, drafts):
        out.append(((*base, draft, "--quantization", flag), gpu, cc.model_dir(layout)))
    return out


QUANTIZED = {
    "awq": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True},
    "awq8": {"quant_method": "awq", "bits": 8, "group_size": 128, "zero_point": True},
    "gptq": {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True,
             "desc_act": False},
    "fp8": {"quant_method": "fp8", "activation_scheme": "dynamic",
            "weight_block_size": [128, 128]},
    "nvfp4": {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16},
}
NAMES: dict[str, str] = {}  # draft directory -> its QUANTIZED name, for the differ counts
QUANTIZED_FLAGS = (None, "fp8", "awq", "awq_marlin", "gptq_marlin", "moe_wna16",
                   "nvfp4_online", "modelopt_fp4", "modelopt", "mxfp8", "w4afp8")


def quantized_lines() -> list[tuple[tuple[str, ...], str, str | None]]:
    """(argv, GPU, None) for every quantized-draft line."""
    out: list[tuple[tuple[str, ...], str, str | None]] = []
    base = ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path")
    for name, dtype, flag, gpu in itertools.product(QUANTIZED, ("bfloat16", "float16"),
                                                    QUANTIZED_FLAGS, ("T4", "A100", "H100",
                                                                      "B200")):
        draft = ds.draft("LlamaForCausalLMEagle", torch_dtype=dtype,
                         quantization_config=QUANTIZED[name])
        NAMES[draft] = name
        extra = () if flag is None else ("--speculative-draft-model-quantization", flag)
        out.append(((*base, draft, *extra), gpu, None))
    return out


def _outcomes(chosen: list[tuple[tuple[str, ...], str, str | None]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    dq.planned.cache_clear()
    for argv, gpu, target in chosen:
        theirs, _ours, agree = dq.compare(argv, gpu, target)
        if agree is None:
            counts["not answerable here"] += 1
            continue
        side = "SGLang starts" if theirs == "starts" else "SGLang refuses"
        counts[f"{side}, {'agree' if agree else 'differ'}"] += 1
        draft = argv[argv.index("--speculative-draft-model-path") + 1]
        if not agree and draft in NAMES:
            counts[f"(differ on the {NAMES[draft]} draft)"] += 1
    return counts


def main() -> None:
    args = sys.argv[1:]
    quantized = bool(args) and args[0] == "quantized"
    args = args[1:] if quantized else args
    chosen = quantized_lines() if quantized else lines()
    if args:
        chosen = random.Random(42).sample(chosen, min(int(args[0]), len(chosen)))
    if quantized:  # main: a quantized draft's checkpoint is not read
        off = mock.patch.object(sglang_cli.sglang_draft_quant, "_quantized",
                                lambda path, data, values: [])
        with off:
            before = _outcomes(chosen)
    else:
        with mock.patch.object(sglang_cli.sglang_draft_quant, "settings", lambda values: []), \
                mock.patch.object(sglang_engine.sglang_draft_quant, "check",
                                  lambda config: None):
            before = _outcomes(chosen)
    after = _outcomes(chosen)
    print(f"lines: {len(chosen)}")
    for label, counts in (("before (rule off, as on main)", before), ("after", after)):
        print(f"{label}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
