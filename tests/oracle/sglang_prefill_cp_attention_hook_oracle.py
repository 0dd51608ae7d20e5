"""The attention hook's other refusals before the CP hook's (issue 23 s66p): SGLang 0.5.23's
attention hook (pipeline.py:242) refuses trtllm_mla off Blackwell or with another KV dtype
(overrides.py:1208-1217), cutedsl_mla for prefill, off SM100 or with another KV dtype
(:1241-1256), trtllm_mha per phase off Hopper / SM100 / SM120 (attention_hook.py:199-206,
222-227) and FMHAv2's fp8_e4m3 prefill on SM120 (:207-221), all before the DP refusal (:274),
LongCat's boundary check and the CP hook (:278: its HIP sentence on ROCm, its strategy and
width checks everywhere). DeepSeek-V4's model hook comes before all of them and, on HIP,
refuses split flags other than dsv4 (deepseek_v4_hook.py:177-186). graphfit answers in that
order (graphfit.inputs.sglang_prefill_cp_platform.after_hip / attention_first / v4_hip).

`compare(case, file)`: SGLang resolves the line on its fake GPU (the MI300X platform, or a
CUDA capability: mtp.CAPABILITIES); graphfit reads it as its CLI does (the GPU flag) or as its
own config file (`file=True`); outcomes as sglang_prefill_cp_rocm_order_oracle.compare's,
graphfit's own words for the backend checks held to the place SGLang's sentence comes from
(`ro.same_reason`)."""

from __future__ import annotations

import random

from tests.oracle import sglang_mtp_oracle as mtp
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_cp_platform_oracle as po
from tests.oracle import sglang_prefill_cp_rocm_order_oracle as ro

Case = cp.Case
# the GPUs drawn: ROCm (the HIP sentence), Hopper, SM100, SM120 (FMHAv2)
GPUS = (po.GPU, "H100", "B200", "RTX5090")
# the backend flags drawn: each refusal of the hook, a backend it accepts, none
BACKENDS: tuple[tuple[str, ...], ...] = (
    ("--attention-backend", "trtllm_mla"), ("--decode-attention-backend", "trtllm_mla"),
    ("--prefill-attention-backend", "trtllm_mla"),
    ("--attention-backend", "cutedsl_mla"), ("--decode-attention-backend", "cutedsl_mla"),
    ("--prefill-attention-backend", "cutedsl_mla"), ("--attention-backend", "tokenspeed_mla"),
    ("--prefill-attention-backend", "tokenspeed_mla"),
    ("--attention-backend", "trtllm_mha"), ("--prefill-attention-backend", "trtllm_mha"),
    ("--decode-attention-backend", "trtllm_mha"),
    ("--prefill-attention-backend", "trtllm_mha", "--decode-attention-backend", "dsv4"),
    ("--attention-backend", "triton"), ())
KV = ((), ("--kv-cache-dtype", "fp8_e4m3"), ("--kv-cache-dtype", "fp8_e5m2"),
      ("--kv-cache-dtype", "bf16"))


def sglang_refusal(case: Case) -> str | None:
    """SGLang's refusal text of the line on its fake GPU (its resolution, then on CUDA the
    prefill runner's CP setup, as sglang_prefill_cp_oracle.compare asks it), or None."""
    argv, gpu, model = case
    if gpu == po.GPU:
        return po.sglang_refusal(case)
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from tests.oracle import sglang_post_capture_oracle as pc
    from tests.oracle import sglang_prefill_oracle as pr

    gb, capability = GPU_MEMORY_GB[gpu], mtp.CAPABILITIES[gpu]
    with pc.environment(None), mtp._restored_environ():
        r = so.resolve(argv, gpu_mem_gb=gb, model=cp.model_dir(model), capability=capability)
        if not isinstance(r, so.Resolved):
            return r.text
        if not cp.cp_bcg_line(case):
            return None
        # the prefill runner's own CP setup (cp._runner_refusal's, on this GPU)
        found = pr.prefill(argv, gb, cp.model_dir(model), capability)
    return found.text if isinstance(found, so.Rejected) else None


def compare(case: Case, file: bool = False) -> tuple[str, list[str]]:
    return ro.judged(case, sglang_refusal(case), file)


def rebackend(argv: tuple[str, ...], rng: random.Random,
              backends: tuple[tuple[str, ...], ...], kv: tuple[tuple[str, ...], ...],
              kv_share: float) -> list[str]:
    """A prefill-CP line with its own `--attention-backend` replaced by one of `backends`, a
    KV dtype of `kv` on a `kv_share` of lines and attention DP on a fifth of them (the draw
    the prefill-CP hook oracles share; the rng's calls in this order)."""
    words = list(argv)
    if "--attention-backend" in words:
        at = words.index("--attention-backend")
        del words[at:at + 2]
    words += rng.choice(backends)
    words += rng.choice(kv) if rng.random() < kv_share else ()
    if rng.random() < 0.2:
        words += ["--dp-size", "2", "--attn-dp-size", "2"]
    return words


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines (sglang_prefill_cp_oracle.generate's shapes) on a GPU of
    GPUS, the line's own backend replaced by one of BACKENDS, a KV dtype now and then, and
    the DP / LongCat refusals drawn in."""
    rng = random.Random(seed)
    out: list[Case] = []
    for argv, _gpu, model in cp.generate(count, rng.randrange(1 << 30)):
        words = rebackend(argv, rng, BACKENDS, KV, 0.4)
        out.append((tuple(words), rng.choice(GPUS),
                    rng.choice((model, "longcat")) if rng.random() < 0.2 else model))
    return out
