"""SGLang 0.5.23's own LoRA start-up checks on drawn lines (issue 23, s65d; not a test): the
line resolved by SGLang (tests.oracle.sglang_oracle.resolve) on a Qwen3-MoE target, then its
own `check_server_args` (arg_groups/validation_hook.py:172-222, which runs
`check_lora_server_args`, arg_groups/lora_hook.py:33-237) on the resolved record, beside
graphfit's CLI on the pasted line (graphfit.planner.engines.sglang_lora_runner). s66l: the
rest of `check_lora_server_args` (`draw_checks`: the adapter limits, overlap loading, the
target list, PD-multiplexing, speculative decoding, the LoRA environment variables), with the
line's environment set for SGLang (its `envs` read os.environ) and prefixed for graphfit.
s67l: a Gemma 4 assistant draft (`FROZEN`, SGLang promotes EAGLE / NEXTN to FROZEN_KV_MTP
with it), `--lora-paths` values of every shape from a config file (`draw_paths`: SGLang's
side a Python caller's `ServerArgs(**data)`, `sglang_file`; graphfit's `--config` file,
`graphfit_file`) and the CLI action's JSON items."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle import test_sglang_deepep_class_oracle as dc

RUNNERS = ("lora_triton", "lora_marlin", "lora_cutedsl", "triton", "auto")
BACKENDS = (None, "triton_v2", "triton_v2", "csgmv")
QUANTS = (None, None, "fp8", "modelopt_fp4")
EXTRAS = ((), (), ("--attn-dp-size", "2", "--enable-dp-attention"),
          # TBO with an a2a backend (without one SGLang's TBO check refuses the line,
          # validation_hook.py:756-772, after the LoRA checks)
          ("--ep-size", "2", "--moe-a2a-backend", "deepep", "--enable-two-batch-overlap"),
          ("--ep-size", "2", "--moe-a2a-backend", "deepep"),
          ("--ep-size", "2", "--ep-num-redundant-experts", "2"),
          ("--ep-size", "2", "--enable-eplb"))


def model(root: Path) -> Path:
    so.oracle()
    return sglang_stubs.write_moe_model_dir(root / "lora-target")


def draw(rng: random.Random) -> tuple[str, ...]:
    """One drawn line (after --model-path)."""
    out = ["--tp-size", "2", "--moe-runner-backend", rng.choice(RUNNERS)]
    lora = rng.random()
    if lora < 0.2:
        out += ["--lora-paths", "a=/adapters/a"]
    elif lora < 0.8:
        out += ["--enable-lora"]
    if rng.random() < 0.7:
        out += ["--max-lora-rank", "8", "--lora-target-modules", "all"]
    backend, quant = rng.choice(BACKENDS), rng.choice(QUANTS)
    if backend:
        out += ["--lora-backend", backend]
    if quant:
        out += ["--quantization", quant]
    return (*out, *rng.choice(EXTRAS))


# s66l: the rest of check_lora_server_args (lora_hook.py:36-178, 240-300)
DRAFT = "@target"  # --speculative-draft-model-path: the target itself, or its DSPARK twin
DSPARK = "@dspark"
SPECS = ((), (), ("--speculative-algorithm", "NGRAM"),
         ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", DRAFT),
         ("--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", DRAFT),
         ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", DRAFT,
          "--speculative-adaptive"),
         ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", DRAFT,
          "--speculative-moe-runner-backend", "experimental_sgl_trtllm"),
         ("--speculative-algorithm", "DSPARK", "--speculative-draft-model-path", DSPARK))
ENVS: tuple[dict[str, str], ...] = (
    {}, {}, {}, {"SGLANG_EXPERIMENTAL_LORA_OPTI": "1"},
    {"SGLANG_ENABLE_OVERLAP_PLAN_STREAM": "true"}, {"SGLANG_RAGGED_VERIFY_MODE": "compact"})
TARGETS = ((), ("all",), ("all",), ("all", "all"), ("all", "q_proj"), ("q_proj", "o_proj"))


def dspark_draft(target: Path) -> Path:
    """A DSPARK draft beside the target: its config plus the fields SGLang's DSPARK parse
    needs (markov_rank > 0, its head type, a mask token id; dspark_config.py:94-128)."""
    draft = target.parent / "dspark-draft"
    if not draft.exists():
        draft.mkdir()
        for item in target.iterdir():
            if item.name != "config.json":
                (draft / item.name).symlink_to(item)
        config = json.loads((target / "config.json").read_text())
        config.update(markov_rank=4, markov_head_type="vanilla", mask_token_id=5)
        (draft / "config.json").write_text(json.dumps(config))
    return draft


def draw_checks(rng: random.Random) -> tuple[dict[str, str], tuple[str, ...]]:
    """(the line's environment, one drawn line after --model-path) for the s66l checks; the
    draft paths are `DRAFT` / `DSPARK` placeholders `compare` fills."""
    out = ["--tp-size", "2", "--moe-runner-backend",
           rng.choice(("auto", "auto", "triton", "lora_triton"))]
    lora = rng.random()
    if lora < 0.3:
        out += ["--lora-paths", *(f"{n}=/adapters/{n}" for n in "abc"[:rng.randint(1, 3)])]
    elif lora < 0.9:
        out += ["--enable-lora"]
    targets = rng.choice(TARGETS)
    if targets:
        out += ["--max-lora-rank", "8", "--lora-target-modules", *targets]
    backend = rng.choice((None, None, "triton_v2", "csgmv"))
    if backend:
        out += ["--lora-backend", backend]
    for flag, values in (("--max-loras-per-batch", (None, None, None, 0, 1, 2, 8)),
                         ("--max-loaded-loras", (None, None, None, 1, 2, 4, 16, 32)),
                         ("--lora-drain-wait-threshold", (None, None, None, -1, 0.5))):
        value = rng.choice(values)
        if value is not None:
            out += [flag, str(value)]
    if rng.random() < 0.25:
        out += ["--enable-lora-overlap-loading"]
    if lora < 0.9 and backend == "triton_v2" and rng.random() < 0.3:
        # only where the V2 check refuses it first: SGLang's own PD-multiplexing asserts
        # (validation_hook.py:249-262) are not graphfit's (the report's Left)
        out += ["--enable-pdmux"]
    return dict(rng.choice(ENVS)), (*out, *rng.choice(SPECS))


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """`env` in os.environ for the block (SGLang's `envs` read it on each get)."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def filled(target: Path, argv: tuple[str, ...]) -> tuple[str, ...]:
    """`argv` with the draft placeholders replaced by real directories."""
    paths = {DRAFT: str(target), DSPARK: str(dspark_draft(target)) if DSPARK in argv else "",
             FROZEN: str(frozen_draft(target)) if FROZEN in argv else ""}
    return tuple(paths.get(arg, arg) for arg in argv)


def graphfit(target: Path, argv: tuple[str, ...], env: Mapping[str, str], gpu: str = "80"
             ) -> tuple[int, str]:
    """(exit status, the last `error:` line) of graphfit's CLI on the line, `env` prefixed,
    planned for `gpu` (GiB or a name)."""
    from graphfit.cli.application import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", gpu, "--", *(f"{k}={v}" for k, v in env.items()),
                  "sglang", "serve", "--model-path", str(target), *argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def sglang(target: Path, argv: tuple[str, ...], env: Mapping[str, str] | None = None
           ) -> tuple[str | None, bool]:
    """(SGLang's refusal or None, whether `check_server_args` raised it), under `env`."""
    with environment(env or {}):
        return _sglang(target, argv)


def _sglang(target: Path, argv: tuple[str, ...]) -> tuple[str | None, bool]:
    try:
        r = so.resolve(argv, model=str(target), checks=False)
    except (AssertionError, ValueError) as exc:  # the --lora-paths action's own (s67l)
        return f"{type(exc).__name__}: {exc}", False
    if isinstance(r, so.Rejected):
        return r.text, False
    said = so.check_refusal(r.record)
    return said, said is not None


def verdict(theirs: str | None, at_check: bool, code: int, said: str) -> str:
    """agree (both plan, or both refuse and, where SGLang's LoRA checks refused, graphfit
    cites lora_hook.py), differ (one refuses), or other (both refuse, graphfit for a reason
    SGLang checks later)."""
    if (theirs is None) != (code == 0):
        return "differ"
    if theirs is None or not at_check or "lora_hook" in said:
        return "agree"
    return "other"


def compare(target: Path, argv: tuple[str, ...], env: Mapping[str, str] | None = None
            ) -> tuple[str, str]:
    """(verdict, a one-line account); `env`: the line's environment (s66l)."""
    argv = filled(target, argv)
    theirs, at_check = sglang(target, argv, env)
    code, said = graphfit(target, argv, env) if env else dc.graphfit(target, argv, True)
    shown = " ".join(a if not a.startswith("/") else a.rsplit("/", 1)[-1] for a in argv[2:])
    prefix = " ".join(f"{k}={v}" for k, v in (env or {}).items())
    return (verdict(theirs, at_check, code, said),
            f"{prefix + ' ' if prefix else ''}{shown}: SGLang {theirs and theirs[:100]}; "
            f"graphfit {code} {said[:120]}")


# s67l: FROZEN_KV_MTP, --lora-paths' shapes (lora_hook.py:76-136) and the CLI action's JSON
FROZEN = "@frozen"  # --speculative-draft-model-path: a Gemma 4 assistant beside the target
FROZEN_STEPS = ("--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                "--speculative-num-draft-tokens", "4")


def frozen_draft(target: Path) -> Path:
    """A Gemma 4 assistant draft beside the target (the frozen draft oracle's config, which
    HF's Gemma4AssistantConfig accepts): SGLang promotes EAGLE / NEXTN to FROZEN_KV_MTP with
    it (speculative_hook.py:81-118), and LoRA refuses FROZEN_KV_MTP (lora_hook.py:252-264)."""
    from tests.oracle.test_sglang_frozen_draft_oracle import TEXT

    draft = target.parent / "frozen-draft"
    if not draft.exists():
        draft.mkdir()
        (draft / "config.json").write_text(json.dumps(
            {"architectures": ["Gemma4AssistantForCausalLM"], "model_type": "gemma4_assistant",
             "torch_dtype": "bfloat16", "text_config": TEXT, "backbone_hidden_size": 2048}))
    return draft


# list items and whole values of `lora_paths` as a config file (JSON) can give them
ITEMS: tuple[object, ...] = ("a=/adapters/a", "b", {"lora_name": "c", "lora_path": "/c"},
                             {"lora_name": "d"}, {"lora_path": "/e", "pinned": True},
                             {"lora_name": "f", "lora_path": 3}, 1, 2.5, None, True, ["g"],
                             "{\"lora_name\": \"h\"}")  # not parsed: no CLI action here
WHOLE: tuple[object, ...] = (None, {}, {"a": "/a"}, {"a": 3}, "a=/a", "", 0, 7, False, [])


def draw_paths(rng: random.Random, target: Path) -> dict[str, object]:
    """A config file's SGLang keys around a drawn `lora_paths`: LoRA on, off or left to the paths,
    rank and targets or not, and now and then a check SGLang runs before the parse (the
    per-batch assert, the speculative check) or after it (the target list, the adapter
    limit), so the order is drawn too."""
    data: dict[str, object] = {}
    if rng.random() < 0.4:  # given either way: False keeps LoRA off whatever the paths
        data["enable_lora"] = rng.random() < 0.75
    data["lora_paths"] = ([rng.choice(ITEMS) for _ in range(rng.randint(1, 3))]
                          if rng.random() < 0.6 else rng.choice(WHOLE))
    if rng.random() < 0.6:
        data.update(max_lora_rank=8, lora_target_modules=rng.choice((["all"], ["all"],
                                                                     ["all", "q_proj"])))
    extra = rng.random()
    if extra < 0.1:
        data["max_loras_per_batch"] = 0
    elif extra < 0.2:
        data.update(speculative_algorithm="STANDALONE",
                    speculative_draft_model_path=str(target))
    elif extra < 0.3:
        data.update(max_loras_per_batch=1, max_loaded_loras=1)
    return data


def sglang_file(target: Path, data: dict[str, object]) -> tuple[str | None, bool]:
    """(SGLang's refusal or None, whether `check_server_args` raised it) for a Python caller's
    `ServerArgs(model_path=target, tp_size=2, **data)` (what `sglang.Engine(**kwargs)` builds,
    entrypoints/engine.py:278-297): resolved on the fake device, then its own
    check_server_args, as the engine runs them (:1153-1165)."""
    o = so.oracle()
    with sglang_stubs.fake_cuda(80 * so.MIB_PER_GB), contextlib.redirect_stderr(io.StringIO()):
        try:
            record = o.server_args.ServerArgs(model_path=str(target), tp_size=2, **data)
            record.resolve_once()
        except Exception as exc:  # SGLang's own refusal before the checks
            return f"{type(exc).__name__}: {exc}", False
    said = so.check_refusal(record)
    return said, said is not None


def graphfit_file(target: Path, data: dict[str, object]) -> tuple[int, str]:
    """(exit status, the last `error:` line) of `graphfit plan --config` on an `engine:
    sglang` JSON file of `data` beside the pasted `sglang serve --model-path target
    --tp-size 2`."""
    from graphfit.cli.application import main

    body = json.dumps({"engine": "sglang", **data})
    file = target.parent / f"lora-{hashlib.sha256(body.encode()).hexdigest()[:16]}.json"
    file.write_text(body)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--config", str(file), "--", "sglang",
                  "serve", "--model-path", str(target), "--tp-size", "2"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def compare_file(target: Path, data: dict[str, object]) -> tuple[str, str]:
    """(verdict, a one-line account) of one config file, as `compare` for a line."""
    theirs, at_check = sglang_file(target, data)
    code, said = graphfit_file(target, data)
    shown = json.dumps({k: v for k, v in data.items() if k != "speculative_draft_model_path"})
    return (verdict(theirs, at_check, code, said),
            f"{shown[:120]}: SGLang {theirs and theirs[:100]}; graphfit {code} {said[:120]}")


# `enable_lora` values a Python caller's ServerArgs may hold (s68l): SGLang reads them by
# Python's truth (lora_hook.py:39-50)
ENABLE_VALUES: tuple[object, ...] = (True, False, None, "false", "true", "no", "0", 0, 1, "",
                                     [])


def draw_enable_value(rng: random.Random, target: Path) -> tuple[str, str]:
    """One config file of `draw_paths` with `enable_lora` one of ENABLE_VALUES (None: not
    given), compared (issue 23, s68l)."""
    data = draw_paths(rng, target)
    data.pop("enable_lora", None)
    value = rng.choice(ENABLE_VALUES)
    if value is not None:
        data = {"enable_lora": value, **data}
    return compare_file(target, data)


# s68l: a pasted line with a `--lora-paths` item SGLang's action refuses (or accepts) and an
# argparse error elsewhere; SGLang reports whichever argparse meets first
LORA_ITEMS = ("{a=/a}", '{"lora_name": "a"}', '{"lora_name": "a", "lora_path": "/a"}', "a=/a",
              " {x} ")
ARGPARSE_ERRORS: tuple[tuple[str, ...], ...] = (
    ("--tp-size", "x"), ("--kv-cache-dtype", "nope"), ("--bogus-flag",),
    ("--max-running-requests", "1.5"), ())


def draw_order(rng: random.Random) -> tuple[str, ...]:
    """A line of one or two `--lora-paths` (LORA_ITEMS, a prefix spelling now and then) and
    an argparse error (ARGPARSE_ERRORS, or none) in a drawn order; a flag missing its value
    at the very end on some."""
    pieces: list[tuple[str, ...]] = []
    for _ in range(rng.choice((1, 1, 2))):
        flag = rng.choice(("--lora-paths", "--lora-paths", "--lora-pa"))
        pieces.append((flag, *rng.sample(LORA_ITEMS, rng.randint(1, 2))))
    pieces.append(rng.choice(ARGPARSE_ERRORS))
    rng.shuffle(pieces)
    tail = ("--tp-size",) if rng.random() < 0.15 else ()
    return ("--tp-size", "2", *(w for p in pieces for w in p), *tail)


def compare_order(target: Path, argv: tuple[str, ...]) -> tuple[str, str]:
    """(agree | differ, a one-line account): both start the line, or both refuse it with
    the error SGLang reports first (its first 30 characters in graphfit's line)."""
    theirs, _ = sglang(target, argv)
    code, said = graphfit(target, argv, {})
    same = (code == 0 if theirs is None else code == 2 and theirs[:30] in said)
    return ("agree" if same else "differ",
            f"{' '.join(argv)}: SGLang {theirs and theirs[:80]}; graphfit {code} {said[:140]}")


def sglang_rocm(target: Path, argv: tuple[str, ...]) -> tuple[str | None, bool]:
    """`sglang` on ROCm: SGLang's own scoped platform override (runtime_context.py:1908-1946)
    with an MI300X's facts (tests.oracle.sglang_mtp_oracle.ROCM_FACTS), so every
    `get_platform().is_hip` the resolution and `check_server_args` read says AMD."""
    from tests.oracle.sglang_mtp_oracle import ROCM_FACTS

    with sglang_stubs.imports():
        from sglang.srt.runtime_context import override_platform
    with override_platform(**ROCM_FACTS):
        return _sglang(target, argv)


# s68l: LoRA's V2 modes on ROCm (lora_hook.py:20-30, `get_platform().is_hip` last)
V2_RUNNERS: tuple[tuple[str, ...], ...] = (
    ("--lora-backend", "triton_v2"),  # a plain runner: the check at :50-54
    ("--lora-backend", "triton_v2", "--moe-runner-backend", "lora_triton"),  # :208
    ("--moe-runner-backend", "lora_triton"),  # refused before the modes (:204-207)
    ())


def draw_rocm(rng: random.Random) -> tuple[str, ...]:
    """A LoRA line (or none) with a V2 runner choice (V2_RUNNERS) and, now and then, a mode
    the check refuses before ROCm (two-batch overlap, attention DP)."""
    lora = rng.choice(((), ("--enable-lora", "--max-lora-rank", "8", "--lora-target-modules",
                            "all"), ("--lora-paths", "a=/adapters/a")))
    extra = rng.choice(((), (), ("--enable-two-batch-overlap",),
                        ("--attn-dp-size", "2", "--enable-dp-lm-head")))
    return ("--tp-size", "2", *lora, *rng.choice(V2_RUNNERS), *extra)


def compare_rocm(target: Path, argv: tuple[str, ...], gpu: str = "MI300X"
                 ) -> tuple[str, str]:
    """(verdict, a one-line account) of a line on a named AMD GPU (`gpu`; "80": SGLang on the
    fake CUDA device, graphfit given a figure in GiB): agree where both start it or both
    refuse it with SGLang's words (its message's first 60 characters in graphfit's line),
    differ where one refuses, other where both refuse for different reasons."""
    theirs, _ = sglang_rocm(target, argv) if gpu == "MI300X" else sglang(target, argv)
    code, said = graphfit(target, argv, {}, gpu)
    if (theirs is None) != (code == 0):
        said_as = "differ"
    else:
        said_as = ("agree" if theirs is None or theirs.split(": ", 1)[-1][:60] in said
                   else "other")
    return (said_as,
            f"{gpu} {' '.join(argv)}: SGLang {theirs and theirs[:100]}; graphfit {code} "
            f"{said[:120]}")


def draw_s67l(rng: random.Random, target: Path) -> tuple[str, str]:
    """One drawn s67l case compared: a config file's `lora_paths` (2 in 3), else a line with
    a Gemma 4 assistant draft under EAGLE / NEXTN / FROZEN_KV_MTP, LoRA on or off."""
    if rng.random() < 2 / 3:
        return compare_file(target, draw_paths(rng, target))
    lora = rng.choice(((), ("--enable-lora", "--max-lora-rank", "8", "--lora-target-modules",
                            "all"), ("--lora-paths", "a=/adapters/a")))
    algo = rng.choice(("EAGLE", "NEXTN", "FROZEN_KV_MTP"))
    return compare(target, ("--tp-size", "2", *lora, "--speculative-algorithm", algo,
                            *FROZEN_STEPS, "--speculative-draft-model-path", FROZEN))
