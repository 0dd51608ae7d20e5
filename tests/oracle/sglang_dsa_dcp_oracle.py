"""SGLang 0.5.23 on a DSA line under `--dcp-size` (issue 23, s69r; not a test).

SGLang's side: its resolution, whose DeepSeek-family override `_dsa_dcp_overrides`
(arg_groups/model_overrides/deepseek_v2.py:18-34) refuses HiSparse, PD disaggregation and an
EAGLE topk above 1 under `--dcp-size` above 1, then its whole `check_server_args`, on the fake
CUDA H100 (tests.oracle.sglang_dsa_backends_oracle.sglang). graphfit's side: its CLI on the
pasted line or its own config file (sglang_dsa_backends_oracle.compare). Targets are
sglang_dsa_backends_oracle.targets' (DeepSeek-V3.2, GLM-5's class, a V3 NextN head, plain V3
MLA, the V3.2 with `learnable_sink`)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
from pathlib import Path

from tests.oracle import sglang_dsa_backends_oracle as dbo
from tests.oracle import sglang_lora_runner_oracle as lro

# the override's own refusals (deepseek_v2.py:21-26), compared word for word
SAID = ("DSA DCP does not support", "DSA DCP requires")
PD = ("prefill", "decode")


def keys(argv: tuple[str, ...]) -> dict[str, object]:
    """The line's flags as config-file keys: a flag with no value (store-true) is true, a
    digit string an int (SGLang's `--config` merger writes a key back as that flag,
    utils/server_args_config_parser.py:164-181)."""
    out: dict[str, object] = {}
    for at, token in enumerate(argv):
        if token.startswith("--"):
            value = argv[at + 1] if at + 1 < len(argv) else None
            key = token[2:].replace("-", "_")
            if value is None or value.startswith("--"):
                out[key] = True
            else:
                out[key] = int(value) if value.isdigit() else value
    return out


def graphfit_file(target: Path, argv: tuple[str, ...]) -> tuple[int, str]:
    """(exit status, the last `error:` line) of `graphfit plan --config` on an `engine:
    sglang` JSON file holding `target` and `keys(argv)`, on the H100."""
    from graphfit.cli.application import main

    body = json.dumps({"engine": "sglang", "model_path": str(target), **keys(argv)})
    file = target.parent / f"dcp-{hashlib.sha256(body.encode()).hexdigest()[:16]}.json"
    file.write_text(body)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "H100", "--config", str(file)])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def compare(target: Path, argv: tuple[str, ...], file: bool = False) -> tuple[str, str]:
    """(verdict, a one-line account) on the H100: agree where both start the line or both
    refuse it, with the override's words (SAID, their first 24 characters) in graphfit's
    error line where the override refused; differ where one refuses; other where both refuse
    for different reasons. `file`: graphfit reads the flags from its own config file."""
    theirs, _ = dbo.sglang(target, argv, "H100")
    code, said = graphfit_file(target, argv) if file else lro.graphfit(target, argv, {}, "H100")
    words = theirs.split(": ", 1)[-1] if theirs else ""
    if (theirs is None) != (code == 0):
        verdict = "differ"
    elif theirs is None or not words.startswith(SAID):
        verdict = "agree"
    else:
        verdict = "agree" if words[:24] in said else "other"
    shown = f"{'file ' if file else ''}{target.name} H100 {' '.join(argv)}"
    return verdict, f"{shown}: SGLang {theirs and theirs[:90]}; graphfit {code} {said[:110]}"


def draw(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """(target name, line after --model-path) on the H100: `--dcp-size` 2 oftener than 1, now
    and then HiSparse (with the radix cache off, as SGLang needs), HiCache, a PD mode, or a
    `--speculative-eagle-topk` of 1 or 2 (no algorithm: SGLang's override reads the flag)."""
    name = rng.choice(("v32", "v32", "glm", "nextn", "mla", "sink"))
    argv: list[str] = ["--dcp-size", rng.choice(("2", "2", "1"))]
    pick = rng.random()
    if pick < 0.2:
        argv += ["--enable-hisparse", "--disable-radix-cache"]
    elif pick < 0.35:
        argv += [rng.choice(("--enable-hierarchical-cache", "--enable-hicache"))]
    elif pick < 0.55:
        argv += ["--disaggregation-mode", rng.choice(PD)]
    elif pick < 0.75:
        argv += ["--speculative-eagle-topk", rng.choice(("1", "2"))]
    return name, tuple(argv)
