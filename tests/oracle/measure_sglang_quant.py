"""Agreement counts: graphfit's `--quantization` verification vs SGLang 0.5.23's own
`ModelConfig._verify_quantization`, three ways:

1. the first 17 flags x 14 checkpoint layouts of tests.oracle.sglang_quantization_oracle on
   SM100 (the 238 pairs the earlier figure counted: "42 of 238 not modelled");
2. N generated flag x quantization_config x GPU-capability cases (tests.oracle.
   sglang_quant_cases);
3. N // 4 generated local checkpoint directories (config.json, hf_quant_config.json, a
   ModelSlim description) read by graphfit's reader and by SGLang with that model_path;
4. N // 10 generated DeepSeek V3 checkpoint directories (safetensors headers, tests.oracle.
   sglang_safetensors_cases), a line without `--quantization` on each: the flag after
   SGLang's `_deepseek_moe_quant_resolution` (its own header read) against graphfit's
   (graphfit's "unknown" counts as not modelled); then the header read alone on N // 4 more;
5. every (class, flag, layout, GPU, a2a backend) of tests.oracle.test_sglang_model_quant_oracle's
   runner grid, a2a backend not none, runner auto: the MoE runner SGLang's own model
   overrides pick (or their refusal) against graphfit's (sglang_quantization.class_runner; a
   graphfit without it keeps the given runner);
6. N // 2 generated model directories for Nemotron-H's expert remap, HYV4's deep_gemm pick and
   the ModelOpt config the overrides read (tests.oracle.sglang_class_picks_cases; also
   `python -m tests.oracle.measure_sglang_class_picks`, which can score another checkout).

Run: python -m tests.oracle.measure_sglang_quant [N] [SEED]  (default 3000 23). Run with
PYTHONPATH=/path/to/an/older/checkout for that checkout's figure on part 1 (it falls back
to the older check_clash(flag, method))."""

from __future__ import annotations

import itertools
import random
import sys
import tempfile
from pathlib import Path

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_quantization as sq
from tests.oracle import sglang_quantization_oracle as qo


def _old_style(flag: str | None, layout: dict) -> str:
    """An older graphfit's answer (check_clash on the parsed method only)."""
    try:
        return str(sq.check_clash(flag, sq.checkpoint_method(layout)))
    except ConfigError as exc:
        return ("not modelled: " if "not modelled" in str(exc) else "refused: ") + str(exc)


def _compare(rows: list[tuple[str, str, str]]) -> tuple[list[str], dict[str, int]]:
    if not hasattr(sq, "effective_config"):
        return _old_compare(rows)
    from tests.oracle import sglang_quant_cases as qc  # not importable against older checkouts

    return qc.compare(rows)


def _old_compare(rows: list[tuple[str, str, str]]) -> tuple[list[str], dict[str, int]]:
    wrong: list[str] = []
    counts = {"cases": len(rows), "accepted": 0, "refused": 0, "crash": 0, "not modelled": 0}
    for label, mine, theirs in rows:
        counts["not modelled"] += mine.startswith("not modelled")
        counts["refused" if theirs.startswith("refused") else "accepted"] += 1
        if mine.startswith("not modelled") or mine.startswith("refused") != theirs.startswith(
                "refused") or (not theirs.startswith("refused") and mine != theirs):
            wrong.append(f"{label}: graphfit {mine[:110]} | SGLang {theirs[:110]}")
    return wrong, counts


def _show(title: str, wrong: list[str], counts: dict[str, int]) -> None:
    agree = counts["cases"] - len(wrong)
    print(f"{title}: {agree} of {counts['cases']} agree, {len(wrong)} differ "
          f"({counts['not modelled']} of them refused by graphfit as not modelled); SGLang "
          f"accepts {counts['accepted']}, refuses {counts['refused']}, stops on "
          f"{counts['crash']}")
    for line in wrong[:5]:
        print("  DIFFER", line)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 23
    new = hasattr(sq, "effective_config")
    names = list(qo.LAYOUTS)[:14]
    if not new:
        rows = [(f"{flag} on {name}", _old_style(flag, qo.LAYOUTS[name]),
                 qo.verify(flag, qo.LAYOUTS[name]))
                for flag, name in itertools.product(qo.FLAGS[:17], names)]
        _show("1. 17 flags x 14 layouts on SM100", *_compare(rows))
        deepseek(count, seed)
        runners()
        class_picks(count, seed)
        return
    from tests.oracle import sglang_quant_cases as qc

    rows = [(f"{flag} on {name}", qc.from_layout(flag, qo.LAYOUTS[name], 100),
             qo.verify(flag, qo.LAYOUTS[name]))
            for flag, name in itertools.product(qo.FLAGS[:17], names)]
    _show("1. 17 flags x 14 layouts on SM100", *_compare(rows))
    rows = [(f"{flag} on {cfg} at SM{cap}", qc.from_layout(flag, cfg, cap),
             qo.verify(flag, cfg, divmod(cap, 10))) for flag, cfg, cap in qc.cases(count, seed)]
    _show(f"2. {count} generated flag x config x GPU cases (seed {seed})", *_compare(rows))
    from tests.oracle import test_sglang_quant_files_oracle as files

    rng, root, rows = random.Random(seed), Path(tempfile.mkdtemp()), []
    for index in range(count // 4):
        config, others = files.checkpoint(rng)
        folder = root / f"ckpt{index}"
        qc.write_checkpoint(folder, config, others)
        flag, cap = rng.choice(qc.FLAGS), rng.choice(qc.CAPABILITIES)
        rows.append((f"{folder.name} {flag} SM{cap}", files._graphfit(str(folder), flag, cap),
                     qo.verify(flag, config.get("quantization_config"), divmod(cap, 10),
                               model_dir=str(folder),
                               compression=config.get("compression_config"))))
    _show(f"3. {count // 4} generated local checkpoints (seed {seed})", *_compare(rows))
    deepseek(count, seed)
    runners()
    class_picks(count, seed)


def runners() -> None:
    """Part 5 (runs against an older graphfit too: without class_runner the runner stays)."""
    from graphfit.planner.engines import sglang_model_quant as smq
    from tests.oracle import test_sglang_model_quant_oracle as t

    new = hasattr(smq, "class_runner")
    cases = wrong = unknown = 0
    shown: list[str] = []
    for arch, flag, name, sm100, a2a in itertools.product(
            t.RUNNER_ARCHS, t.RUNNER_FLAGS, t.RUNNER_LAYOUTS, (True, False), t.A2AS[1:]):
        state, _, runner = t._sglang_runner(arch, flag, name, sm100, a2a)
        if state == "weights":
            continue
        cases += 1
        if new:
            ours = t._graphfit_runner(arch, flag, name, sm100, a2a)
        else:
            layout = t.RUNNER_LAYOUTS[name]
            method = sq.checkpoint_method(layout) if layout else None
            try:
                sq.check_clash(flag, method, sq.effective_config(layout) if layout else None,
                               100)
                ours = ("ok", "auto")
            except ConfigError:
                ours = ("refused", None)
        unknown += ours[0] == "unknown"
        theirs = (state, runner if state == "ok" else None)
        if ours != theirs:
            wrong += 1
            shown.append(f"{arch} {flag} {name} sm100={sm100} {a2a}: graphfit {ours} | "
                         f"SGLang {theirs}")
    print(f"5. {cases} class x flag x layout x GPU x a2a lines, runner auto: {cases - wrong} "
          f"agree, {wrong} differ ({unknown} of them unknown to graphfit, not modelled)")
    for line in shown[:5]:
        print("  DIFFER", line)


def deepseek(count: int, seed: int) -> None:
    """Part 4 (runs against an older graphfit too: it needs only quant_settings and
    sglang_quantization.flag_known / resolved_flag)."""
    from tests.oracle import sglang_model_quant_oracle as mo
    from tests.oracle import sglang_safetensors_cases as st

    rng, root = random.Random(seed), Path(tempfile.mkdtemp())
    wrong, unknown, flags = [], 0, {"fp8": 0, "none": 0, "other": 0, "refused": 0}
    for index in range(count // 10):
        folder = root / f"ds{index}"
        quant, sm100 = st.write_line(rng, folder)
        theirs = mo.resolve("DeepseekV3ForCausalLM", None, quant, sm100,
                            model_path=str(folder))
        ours = st.graphfit_flag(str(folder), sm100)
        unknown += ours[0] == "unknown"
        key = theirs[0] if theirs[0] == "refused" else {"fp8": "fp8", None: "none"}.get(
            theirs[1], "other")
        flags[key] += 1
        if st.differs(ours, theirs):
            wrong.append(f"{folder.name} {quant} sm100={sm100}: graphfit {ours[:2]} | "
                         f"SGLang {theirs[:2]}")
    print(f"4. {count // 10} DeepSeek V3 lines without --quantization (seed {seed}): "
          f"{count // 10 - len(wrong)} agree, {len(wrong)} differ ({unknown} of them unknown "
          f"to graphfit, not modelled); SGLang's flag: fp8 {flags['fp8']}, none "
          f"{flags['none']}, another {flags['other']}, refused {flags['refused']}")
    for line in wrong[:5]:
        print("  DIFFER", line)
    try:
        import graphfit.inputs.sglang_safetensors  # noqa: F401  (absent before s32q)
    except ImportError:
        print("   header read alone: no reader in this graphfit")
        return
    wrong, counts = st.compare(root / "headers", count // 4, seed)
    print(f"   header read alone on {count // 4} directories: {count // 4 - len(wrong)} "
          f"agree, {len(wrong)} differ; SGLang finds FP8 experts in {counts['fp8']}")


def class_picks(count: int, seed: int) -> None:
    """Part 6: tests.oracle.sglang_class_picks_cases over N // 2 model directories."""
    from tests.oracle import sglang_class_picks_cases as cp

    with tempfile.TemporaryDirectory(prefix="class-picks-") as root:
        counts, lines = cp.run(count // 2, seed, Path(root))
    print(f"6. {count // 2} Nemotron-H remap / HYV4 / hf_quant_config.json lines (seed {seed}): "
          f"{counts['agree']} agree, {counts['differ']} differ, {counts['not modelled']} not "
          f"modelled")
    for line in [x for x in lines if not x.startswith("not modelled")][:5]:
        print("  DIFFER", line)


if __name__ == "__main__":
    main()
