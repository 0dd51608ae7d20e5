"""MiniMax-M3 served as `minimax_m3_nvfp4` without speculation, against SGLang's own override
hook (arg_groups/model_overrides/minimax_m3.py:56-122) and pool price: each generated line is
resolved by SGLang's argument pipeline on an NVFP4-expert checkpoint directory on the fake
device of its GPU (H100: 9.0, B200: 10.0), then priced by SGLang's `_compute_cell_size`
(tests/oracle/sglang_minimax_kv_oracle). graphfit plans the same pasted line. They agree
when SGLang refuses with the hook's ValueError and graphfit exits 2 with that sentence citing
minimax_m3.py, or SGLang accepts and graphfit plans it showing SGLang's per-token price and
resolved page size.

`python -m tests.oracle.measure_sglang_minimax_nvfp4_hook [COUNT] [SEED]` prints the agreement
count. For the count before a change, run it in a copy of the other tree whose tests/oracle
is this one's (e.g. `git archive main | tar -x -C DIR`, then copy tests/oracle over it;
since s54m SGLang's fake device has the memory of graphfit's GPU name, so older trees'
own copies of this file count differently).
A third argument `spec` draws DSPARK / DFLASH lines with a MiniMax draft instead (issue 23
s53d: the hook's draft checks, minimax_m3.py:59-93).
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from typing import Any

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle import sglang_minimax_kv_oracle as kv  # noqa: E402
from tests.oracle import sglang_minimax_target_oracle as mo  # noqa: E402

CAPABILITY = {"H100": (9, 0), "B200": (10, 0)}
# an mxfp8 checkpoint with NVFP4 packed experts: the hook serves it as minimax_m3_nvfp4
# (minimax_m3.py:18-34)
NV: dict[str, Any] = {"quant_method": "mxfp8", "moe_quant_algo": "NVFP4",
                      "moe_quant_format": "nvfp4-pack-quantized",
                      "activation_scheme": "dynamic"}
# MoE experts (so the a2a / runner flags reach the hook) and a sparse layer whose index
# projections the [1, 32] blocks accept at TP 1 / 2
FIELDS: dict[str, Any] = {
    "qk_norm_type": "per_head", "head_dim": 128, "moe_layer_freq": [0, 1],
    "num_local_experts": 8, "num_experts_per_tok": 2, "scoring_func": "sigmoid",
    "swiglu_alpha": 1.702, "swiglu_limit": 7.0, "intermediate_size": 1024,
    "sparse_attention_config": {"sparse_attention_freq": [0, 1],
                                "sparse_num_index_heads": 4, "sparse_index_dim": 64}}
# the flags drawn: each value None leaves the flag out
CHOICES: dict[str, tuple[str | None, ...]] = {
    "--page-size": (None, None, "1", "64", "128"),
    "--kv-cache-dtype": (None, None, "auto", "bf16", "fp8_e4m3", "fp8_e5m2"),
    "--attention-backend": (None, None, None, "fa3", "triton", "trtllm_mha", "fa4"),
    "--moe-a2a-backend": (None, None, "megamoe", "deepep"),
    "--moe-runner-backend": (None, None, "flashinfer_trtllm_routed", "deep_gemm"),
    "--speculative-algorithm": (None, None, None, "EAGLE"),
    # (s54m) the prefill chunk the megamoe token budget bounds on Blackwell: B200's default
    # 16384 is refused (SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK 8192)
    "--chunked-prefill-size": (None, "4096", "8192"),
}
# (s53d) the DSPARK / DFLASH draws (`draw(rng, spec=True)`): the algorithm with a MiniMax
# draft SGLang builds (tests/oracle/sglang_dspark_compare.minimax_dir), and the line's
# SGLANG_RAGGED_VERIFY_MODE / PP / disaggregation the hook checks (minimax_m3.py:68-79)
SPEC: dict[str, tuple[str | None, ...]] = {
    "--speculative-algorithm": ("DSPARK", "DFLASH"),
    "--pp-size": (None, None, None, "2"),
    "--disaggregation-mode": (None, None, None, "prefill"),
    "--speculative-draft-attention-backend": (None, None, None, "triton"),
    "--speculative-draft-kv-cache-dtype": (None, None, "auto", "bf16"),
}
RAGGED = (None, None, None, "static", "compact")
LAYERS = '{"dflash_config": {"num_target_layers": 2, "target_layer_ids": [0, 1]}}'
HOOK = "arg_groups/model_overrides/minimax_m3.py"
MEGAMOE = "with MegaMoE requires SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"


def target(nested: bool = False) -> str:
    """The checkpoint directory (top level or under the VL wrapper)."""
    wrapper = {"wrapper": {"quantization_config": NV}} if nested else None
    fields = FIELDS if nested else {**FIELDS, "quantization_config": NV}
    return mo.target_dir(fields, nested, wrapper)


def draw(rng: random.Random, spec: bool = False) -> tuple[str, int, tuple[str, ...]]:
    """(GPU, TP, flags) of one generated line; `spec`: a DSPARK / DFLASH line with a draft
    (its environment as leading VAR=value words)."""
    flags: list[str] = []
    choices = {**CHOICES, **SPEC} if spec else CHOICES
    for flag, values in choices.items():
        value = rng.choice(values)
        if value is not None:
            flags += [flag, value]
    if spec:
        from tests.oracle import sglang_dspark_compare as kc

        # the draft's capture layers inside this 2-layer target: SGLang's target runner
        # refuses ids past the target's layers (dflash_utils.py:348-385;
        # tests/oracle/test_sglang_dflash_layers_oracle), a rule this oracle does not run
        flags += [kc.DRAFT, kc.minimax_dir(LAYERS)]
        mode = rng.choice(RAGGED)
        flags = [f"SGLANG_RAGGED_VERIFY_MODE={mode}"] * (mode is not None) + flags
    return rng.choice(tuple(CAPABILITY)), rng.choice((1, 2)), tuple(flags)


def graphfit_line(path: str, gpu: str, tp: int, flags: tuple[str, ...]) -> tuple[int, str]:
    """(exit code, the error line or the plan's text) for the pasted line."""
    from graphfit.cli.options import PASTED

    env = tuple(word for word in flags if "=" in word and not word.startswith("-"))
    rest = tuple(word for word in flags if word not in env)
    token = PASTED.set((*env, "python", "-m", "sglang.launch_server", "--model-path", path,
                        "--tp-size", str(tp), *rest))
    try:
        code, _, output = sc.run_graphfit(["plan", "--gpu-memory-gb", gpu])
    finally:
        PASTED.reset(token)
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else " ".join(output.split()))


def verdict(path: str, gpu: str, tp: int, flags: tuple[str, ...]) -> tuple[str, str]:
    """(outcome, detail): "agree" / "disagree" where SGLang's hook decides the line, "skip"
    where SGLang refuses it for another rule than the hook's, "build" where SGLang resolves
    and prices it and graphfit says SGLang's model class (or, s53d, its MiniMax DSPARK
    draft) cannot be built (neither is this oracle's). `flags` may lead with the line's
    VAR=value environment (set for SGLang's resolution, pasted before graphfit's line)."""
    env = tuple((word.split("=", 1)[0], word.split("=", 1)[1]) for word in flags
                if "=" in word and not word.startswith("-"))
    argv = ("--model-path", path, "--tp-size", str(tp),
            *(word for word in flags if "=" not in word or word.startswith("-")))
    theirs = price(path, argv, gpu, env)
    code, said = graphfit_line(path, gpu, tp, flags)
    if isinstance(theirs, str):
        hook = re.match(r"Rejected: ValueError: (M3\.1 NVFP4 .*)", theirs)
        if hook is None and MEGAMOE in theirs:
            # (s54m) the megamoe token budget the hook's megamoe brings on Blackwell
            # (minimax_m3.py:109-114 -> mega_moe_hook.py:78-91, 240-256)
            ok = code == 2 and "megamoe:" in said and "mega_moe_hook.py" in said
            return ("agree" if ok else "disagree"), f"{theirs} | graphfit {code}: {said[:200]}"
        if hook is None:
            return "skip", theirs
        ok = code == 2 and hook.group(1) in said and HOOK in said and len(said) <= 200
        return ("agree" if ok else "disagree"), f"{theirs} | graphfit {code}: {said[:200]}"
    cells, page = theirs
    if code == 2 and ("SGLang cannot build" in said or "draft fails to build" in said):
        # the model class's own rule, after resolution: judged by the oracle that builds the
        # class (tests/oracle/test_sglang_minimax_target_oracle; a MiniMax DSPARK draft's:
        # test_sglang_dspark_minimax_oracle), not by this one
        return "build", said
    shown = f"minimax_sparse_kv {cells[0]} B a token"
    ok = code == 0 and shown in said and f"a page of {page} " in said
    return ("agree" if ok else "disagree"), f"SGLang {cells} page {page} | graphfit {code}: " \
        + (said[:200] if code else "plan")


def price(path: str, argv: tuple[str, ...], gpu: str, env: tuple[tuple[str, str], ...]
          ) -> kv.Priced | str:
    """SGLang's price of the line on the fake device of `gpu`: its capability and (s54m) the
    memory graphfit's GPU name stands for (graphfit.inputs.gpus), so the memory-tiered
    defaults SGLang picks (chunked prefill, decode max batch) are the ones graphfit plans
    (before s54m: an 80 GB device whatever the GPU)."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB

    return kv.cell_sizes(path, argv, CAPABILITY[gpu], env, gpu_mem_gb=GPU_MEMORY_GB[gpu])


def measure(count: int, seed: int, spec: bool = False) -> Counter[str]:
    """Counts of each outcome over `count` generated lines (`spec`: DSPARK / DFLASH lines,
    mostly on the VL wrapper the hook requires); prints the disagreements."""
    rng = random.Random(seed)
    paths = {nested: target(nested) for nested in (False, True)}
    tally: Counter[str] = Counter()
    for _ in range(count):
        gpu, tp, flags = draw(rng, spec)
        nested = rng.random() < (0.75 if spec else 0.25)
        outcome, detail = verdict(paths[nested], gpu, tp, flags)
        tally[outcome] += 1
        if outcome == "disagree":
            print(f"DISAGREE {gpu} tp{tp} {' '.join(flags)} nested={nested}: {detail}")
    return tally


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    spec = len(sys.argv) > 3 and sys.argv[3] == "spec"
    tally = measure(count, seed, spec)
    kind = "DSPARK / DFLASH " if spec else ""
    print(f"{count} {kind}lines (seed {seed}): {tally['agree']} agree, {tally['disagree']} "
          f"disagree, {tally['skip']} refused by SGLang for other rules, {tally['build']} "
          f"refused by graphfit as a model SGLang cannot build")


if __name__ == "__main__":
    main()
