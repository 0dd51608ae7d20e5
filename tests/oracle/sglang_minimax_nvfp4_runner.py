"""The DSPARK / DFLASH draft runner on a MiniMax-M3 target served as `minimax_m3_nvfp4`
(issue 23 s54m), SGLang's own against graphfit's plan.

SGLang's side: the line (the VL wrapper's NVFP4-expert checkpoint of
tests/oracle/measure_sglang_minimax_nvfp4_hook, a MiniMax M3.1 draft of
tests/oracle/sglang_dspark_compare.minimax_dir) resolved by SGLang's argument pipeline on the
fake device of the GPU (its capability, and the memory graphfit's GPU name stands for, so the
memory-tiered defaults match: decode max batch, chunked prefill), the override hook
(arg_groups/model_overrides/minimax_m3.py:56-122) included; then SGLang's target and draft
runners and the DSPARK folded sampler built on CPU (tests/oracle/sglang_oracle.runners,
sglang_dspark_oracle.dspark_runner), sized by the target's hidden size and vocabulary.
graphfit's side: `graphfit plan --json --gpu-memory-gb GPU -- <the same line>`.

Compared: acceptance, the target ladder, the components, the draft ladder, every buffer both
ways and the draft's padding (tests/oracle/sglang_compare), and the folded sampler's buffer
names. The model-level aspects (compare_model) are not: they give graphfit SGLang's resolved
values on the oracle's own model directory, not on this checkpoint.

`python -m tests.oracle.sglang_minimax_nvfp4_runner` prints the outcome of each line of LINES.
"""

from __future__ import annotations

import json
from typing import Any

from tests.oracle import measure_sglang_minimax_nvfp4_hook as m
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so
from tests.oracle.sglang_block_drafts import compare_sampler_names, run_cli

HIDDEN, VOCAB = 1024, 1024  # the target's text config (sglang_minimax_target_oracle.TEXT)


def line(algo: str, *extra: str) -> tuple[str, ...]:
    """The flags of a DSPARK / DFLASH line with the oracle's MiniMax draft."""
    from tests.oracle import sglang_dspark_compare as kc

    return ("--speculative-algorithm", algo, *extra, kc.DRAFT, kc.minimax_dir(m.LAYERS))


def file_keys(argv: tuple[str, ...]) -> dict[str, Any]:
    """The launch line's flags as graphfit's own `--config` file keys (SGLang's spelling, an
    integer where the value is one, a list for a flag given several values; issue 23 s60m)."""
    keys: dict[str, Any] = {"engine": "sglang"}
    name = ""
    for word in argv:
        if word.startswith("--"):
            name = word[2:].replace("-", "_")
            keys[name] = []
        else:
            keys[name].append(int(word) if word.isdigit() else word)
    return {k: v[0] if isinstance(v, list) and len(v) == 1 else v for k, v in keys.items()}


def compare(gpu: str, flags: tuple[str, ...], file: str | None = None,
            flag_model: bool = False) -> tuple[str, list[str]]:
    """(outcome, differences) for the pasted line on `gpu` (H100 / B200): "runner" when both
    plan and SGLang builds the draft runner, "rejected" when both refuse, "differs". With
    `file` (a path to write), graphfit reads the same settings from its own JSON `--config`
    file instead of the pasted line (`file_keys`, issue 23 s60m); `flag_model`: the file
    names no `model_path`, graphfit's own `--model-path` flag gives the target (issue 23
    s62c, SGLang's --model-path beside its --config)."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB

    path = m.target(True)
    argv = ("--model-path", path, *flags)
    resolved = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=path,
                          capability=m.CAPABILITY[gpu])
    sg = _sglang(resolved)
    given = ["--", "python", "-m", "sglang.launch_server", *argv]
    if file is not None:
        keys = file_keys(argv)
        if flag_model:
            del keys["model_path"]
        with open(file, "w", encoding="utf-8") as handle:
            json.dump(keys, handle)
        given = ["--config", file, *(("--model-path", path) if flag_model else ())]
    code, out, text = run_cli(["plan", "--json", "--gpu-memory-gb", gpu, *given])
    if code != 0:
        errors = [ln for ln in text.splitlines() if "error" in ln]
        gf = sc.GraphfitAnswer(argv, (errors or [f"exit {code}"])[-1])
    else:
        config = sc.EngineConfig.from_dict(json.loads(out)["config"])
        gf = sc.GraphfitAnswer(argv, None, sc.graphfit.plan(config))
    settled = sc.settled_by_acceptance(sg, gf)
    if settled is not None:
        return settled[0], [d.detail for d in settled[1]]
    assert sg.runners is not None
    runner = next((n for n in ("dspark_draft", "dflash_draft") if n in sg.runners), None)
    diffs = (sc.compare_target_ladder(sg, gf) + sc.compare_components(sg, gf)
             + sc.compare_draft_ladder(sg, gf) + sc.compare_buffers(sg, gf, extra=True))
    if runner is not None:
        diffs += sc.compare_padding(sg, gf, runner) + compare_sampler_names(sg, gf, runner)
    shown = [f"{d.aspect}: {d.detail}" for d in diffs]
    return ("differs" if diffs else "runner" if runner else "no_runner"), shown


def _sglang(resolved: Any) -> sc.SglangAnswer:
    if isinstance(resolved, so.Rejected):
        return sc.SglangAnswer(resolved, None)
    try:
        return sc.SglangAnswer(resolved, so.runners(resolved, hidden_size=HIDDEN,
                                                    vocab_size=VOCAB))
    except Exception as exc:  # the server would not start (the draft worker's own raise)
        return sc.SglangAnswer(resolved, None, f"{type(exc).__name__}: {exc}")


# (GPU, flags): B200 with chunked prefill 4096 (the hook's megamoe token budget, see the
# coverage doc's s54m section: SGLang refuses B200's default 16384), H100 (marlin, no megamoe)
LINES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("B200", line("DSPARK", "--chunked-prefill-size", "4096")),
    ("B200", line("DFLASH", "--chunked-prefill-size", "4096")),
    ("B200", line("DSPARK", "--chunked-prefill-size", "4096", "--cuda-graph-max-bs-decode",
                  "24")),
    ("B200", line("DFLASH", "--chunked-prefill-size", "4096", "--speculative-draft-kv-cache-dtype",
                  "bf16", "--cuda-graph-bs-decode", "1", "3", "8")),
)


def main() -> None:
    for gpu, flags in LINES:
        outcome, diffs = compare(gpu, flags)
        print(gpu, " ".join(f for f in flags if not f.startswith("/")), "->", outcome, diffs)


if __name__ == "__main__":
    main()
