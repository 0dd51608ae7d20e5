"""Refusal counts: SGLang 0.5.23's own checks of the attention backend it resolves, on lines
OTHER than multi-layer EAGLE (none, EAGLE topk 1 / 2, NEXTN topk 2, EAGLE with SGLang's
automatic steps / topk), vs graphfit's plan of
the same pasted line, over every model shape of tests/oracle/test_sglang_mtp_oracle.py x 6
GPUs x a few line variants. "skip" = SGLang refuses, graphfit plans (the gap this counts).
With `--algorithms DFLASH,DSPARK,NGRAM,FROZEN_KV_MTP,UNO` (any of them) the speculation
variants are lines of those algorithms instead (`other_spec`: a draft checkpoint where the
algorithm needs one, NGRAM with topk 1 and 2).
With `--append "FLAGS"` every line gets those flags too (s34a: `--kv-cache-dtype nvfp4`).
With `--gib` (s34a): UNO lines naming no backend on the override architectures with the GPU
given in GiB (24 / 80 / 141): "same" where SGLang answers alike on every GPU of the grid with
that memory, and whether graphfit answers ("agree" / "differ") or asks for the GPU's name.
With `--nvfp4` (s37a): FP4 KV-cache lines (`NVFP4_EXTRAS`: nvfp4 alone, with a named
flashinfer base, each `--prefill-kv-cache-dequant-dtype`, a named draft backend; the
dequant flag without nvfp4; fp4_mx_block16; s39a: fp4_mx_block16 naming fa4, `FA4_EXTRAS`,
alone with `--fa4`) x `nvfp4_specs` (no speculation, EAGLE topk 1 /
2 / automatic, DFLASH, NGRAM breadth 10) on SM100 / SM120 (B200, RTX5090), the
`NVFP4_SHAPES` models: an MLA axis outside the DeepSeek override
(`mla_v2`: DeepseekV2ForCausalLM, whose base SGLang's generic default picks).
Run: python -m tests.oracle.measure_sglang_backend_checks [--verbose] [--algorithms A,B]
[--append "FLAGS"] [--nvfp4] [--fa4]"""

from __future__ import annotations

import sys

from tests.oracle import sglang_mtp_oracle as mo
from tests.oracle import test_sglang_mtp_oracle as t

GPUS = (*mo.CAPABILITIES, *mo.PLATFORMS)
SPEC: tuple[tuple[str, ...], ...] = (
    (), ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
         "--speculative-num-draft-tokens", "4", "--speculative-eagle-topk", "1"),
    ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
     "--speculative-num-draft-tokens", "4", "--speculative-eagle-topk", "2"),
    ("--speculative-algorithm", "NEXTN", "--speculative-num-steps", "2",
     "--speculative-num-draft-tokens", "4", "--speculative-eagle-topk", "2"),
    ("--speculative-algorithm", "EAGLE"))  # SGLang picks steps / topk / draft tokens
EXTRAS: tuple[tuple[str, ...], ...] = (
    (), ("--kv-cache-dtype", "fp8_e5m2"), ("--decode-attention-backend", "flashinfer"),
    ("--page-size", "16"))


OTHER = ("DFLASH", "DSPARK", "NGRAM", "FROZEN_KV_MTP", "UNO")


def other_spec(algorithm: str) -> tuple[tuple[str, ...], ...]:
    """Lines of an algorithm outside the EAGLE family: SGLang runs its backend checks on
    them too, without the EAGLE topk rules."""
    from tests.oracle import sglang_dflash_compare as dc
    from tests.oracle import sglang_dspark_compare as kc
    from tests.oracle import test_sglang_frozen_draft_oracle as fd

    algo = ("--speculative-algorithm", algorithm)
    if algorithm == "DFLASH":
        return ((*algo, dc.DRAFT, dc.draft_dir({"block_size": 8})),)
    if algorithm == "DSPARK":
        return ((*algo, kc.DRAFT, kc.draft_dir("dspark_block_size", 8, None)),)
    if algorithm == "NGRAM":
        return tuple((*algo, "--speculative-eagle-topk", k, "--speculative-num-draft-tokens",
                      "8") for k in ("1", "2"))
    if algorithm == "FROZEN_KV_MTP":
        return (fd.spec("FROZEN_KV_MTP", fd.gemma_draft())[2:],)
    if algorithm == "UNO":
        return ((*algo, "--uno-lora-path", "/tmp/uno", "--speculative-num-draft-tokens", "4"),)
    raise ValueError(f"unknown algorithm {algorithm}; one of {', '.join(OTHER)}")


def grid(specs: tuple[tuple[str, ...], ...] = SPEC,
         extras: tuple[tuple[str, ...], ...] = EXTRAS, gpus: tuple[str, ...] = GPUS,
         more: dict[str, str] | None = None, shapes: tuple[str, ...] | None = None
         ) -> list[tuple[str, str, str, tuple[str, ...]]]:
    models = {**{s: t._SHAPES[s] for s in t.SHAPES}, **t._OVERRIDES, **(more or {})}
    return [(gpu, shape, models[shape], ("--max-running-requests", "33", *spec, *extra))
            for shape in sorted(shapes or models) for gpu in gpus for spec in specs
            for extra in extras if not (shape == "vl" and gpu in mo.PLATFORMS)]


NVFP4 = ("--kv-cache-dtype", "nvfp4")
DEQUANT = "--prefill-kv-cache-dequant-dtype"
NVFP4_EXTRAS: tuple[tuple[str, ...], ...] = (
    NVFP4, (*NVFP4, "--attention-backend", "flashinfer"), (*NVFP4, DEQUANT, "fp8_e4m3"),
    (*NVFP4, DEQUANT, "nvfp4"), (*NVFP4, "--speculative-draft-attention-backend", "triton"),
    (DEQUANT, "fp8_e4m3"), ("--kv-cache-dtype", "fp4_mx_block16"))
# (s39a) fp4_mx_block16 lines naming fa4: the KV4 FA4 lists (kv_cache_hook.py:276-295), which
# only fp4_mx_block16 reaches (nvfp4's prefill is flashinfer or trtllm_mha, :65-76)
FP4MX = ("--kv-cache-dtype", "fp4_mx_block16")
FA4_EXTRAS: tuple[tuple[str, ...], ...] = (
    (*FP4MX, "--attention-backend", "fa4"),
    (*FP4MX, "--prefill-attention-backend", "fa4", "--decode-attention-backend", "triton"),
    (*FP4MX, "--prefill-attention-backend", "fa4", "--decode-attention-backend", "flashinfer"),
    (*FP4MX, "--prefill-attention-backend", "fa4"))
NVFP4_EXTRAS = (*NVFP4_EXTRAS, *FA4_EXTRAS)
NVFP4_GPUS = ("B200", "RTX5090")  # the GPUs an nvfp4 KV cache runs on (kv_cache_hook.py:124-131)


# `--nvfp4`'s models: the MHA / MLA shapes and the overrides that name a backend before the
# nvfp4 hook or hold their own backend rules
NVFP4_SHAPES = ("llama", "moe", "mla", "mla_v2", "sinks", "asym", "gemma3", "olmo2",
                "BeamForCausalLM", "DeepseekV4ForCausalLM", "GptOssForCausalLM",
                "IQuestQ1ForCausalLM", "KimiK3ForConditionalGeneration",
                "MiniMaxM3SparseForCausalLM", "Qwen3_5ForConditionalGeneration")


def nvfp4_specs() -> tuple[tuple[str, ...], ...]:
    """`--nvfp4`'s speculation variants (module docstring)."""
    none, eagle1, eagle2, _, eagle_auto = SPEC
    return (none, eagle1, eagle2, eagle_auto, *other_spec("DFLASH"), other_spec("NGRAM")[1])


_MLA_DIR: list[str] = []


def mla_v2() -> dict[str, str]:
    """The MLA axis outside the DeepSeek V3 family's override: a DeepseekV2ForCausalLM
    (MLA by its architecture, configs/model_config.py; no SM100 trtllm_mla override,
    deepseek_v2.py:37-50)."""
    import json
    import tempfile
    from pathlib import Path

    from tests.oracle import sglang_stubs as ss

    if not _MLA_DIR:
        root = Path(tempfile.mkdtemp(prefix="graphfit-mla-v2-"))
        path = ss.write_mla_model_dir(root / "mla_v2")
        data = json.loads((path / "config.json").read_text())
        (path / "config.json").write_text(json.dumps(
            {**data, "architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2"}))
        _MLA_DIR.append(str(path))
    return {"mla_v2": _MLA_DIR[0]}


def _sglang(argv: tuple[str, ...], gpu: str, model: str) -> str | None:
    """SGLang's refusal's text, or None where its resolve accepts the line."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from tests.oracle import sglang_oracle as so

    so.oracle()
    with mo._restored_environ(), mo._platform(gpu):
        r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                       capability=mo.CAPABILITIES.get(gpu, (9, 4)))
    return None if isinstance(r, so.Resolved) else r.text


def _graphfit(argv: tuple[str, ...], gpu: str, model: str) -> str | None:
    """graphfit's error, or None where it plans the line (graphfit.cli.options.build_config,
    the merge `graphfit plan` runs, then the plan)."""
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError
    from graphfit.planner.plan import plan

    try:
        plan(build_config({"gpu_memory_gb": gpu}, environ={}, pasted=[
            "python", "-m", "sglang.launch_server", "--model-path", model, *argv]))
    except GraphfitError as exc:
        return str(exc)
    return None


def verdict(argv: tuple[str, ...], gpu: str, model: str) -> str:
    """"plan" (both plan), "refused" (both refuse), "skip: ..." (SGLang refuses, graphfit
    plans), "over: ..." (graphfit refuses, SGLang plans)."""
    sglang, ours = _sglang(argv, gpu, model), _graphfit(argv, gpu, model)
    if sglang is None:
        return "plan" if ours is None else f"over: graphfit refuses: {ours}"
    return "refused" if ours is not None else f"skip: SGLang refuses: {sglang}"


def gib() -> None:
    """The `--gib` tally (module docstring)."""
    from tests.oracle import test_sglang_uno_default_oracle as ud

    tally: dict[str, int] = {}
    for shape in ud.GIB_SHAPES:
        for extra in sorted(ud.EXTRAS):
            for size in (24.0, 80.0, 141.0):
                answers, ours = ud.by_gib(shape, extra, size)
                same = "same" if len(answers) == 1 else "differ by GPU"
                said = "asks" if ours == "asks" else (
                    "agree" if ours in answers else "differ" if ud.gib_differences(
                        shape, extra, size) else "agree (verdict)")
                if said == "differ":
                    print("DIFFER", shape, extra, size, answers, ours)
                key = f"{same} / graphfit {said}"
                tally[key] = tally.get(key, 0) + 1
    print(f"UNO override lines, GPU in GiB, {sum(tally.values())} lines: "
          + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


def main() -> None:
    if "--gib" in sys.argv:
        gib()
        return
    verbose = "--verbose" in sys.argv
    specs, label = SPEC, "not multi-layer EAGLE"
    if "--algorithms" in sys.argv:
        names = sys.argv[sys.argv.index("--algorithms") + 1].upper().split(",")
        specs = tuple(line for name in names for line in other_spec(name))
        label = "/".join(names)
    if "--append" in sys.argv:
        more = tuple(sys.argv[sys.argv.index("--append") + 1].split())
        specs = tuple((*line, *more) for line in specs)
        label += " + " + " ".join(more)
    lines = grid(specs)
    if "--nvfp4" in sys.argv:
        lines = grid(nvfp4_specs(), NVFP4_EXTRAS, NVFP4_GPUS, mla_v2(), NVFP4_SHAPES)
        label = "FP4 KV lines"
    if "--fa4" in sys.argv:
        lines = grid(nvfp4_specs(), FA4_EXTRAS, NVFP4_GPUS, mla_v2(), NVFP4_SHAPES)
        label = "fp4_mx_block16 lines naming fa4"
    tally: dict[str, int] = {}
    for gpu, shape, model, argv in lines:
        said = verdict(argv, gpu, model)
        key = said.split(":", 1)[0]
        tally[key] = tally.get(key, 0) + 1
        if key == "skip" or (verbose and key == "over"):
            print(key.upper(), gpu, shape, " ".join(argv[2:]), said[:220])
    print(f"{label}, {sum(tally.values())} lines: "
          + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


if __name__ == "__main__":
    main()
