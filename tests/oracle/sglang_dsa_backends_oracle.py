"""SGLang 0.5.23 on a DSA line's backends without HiSparse (issue 23, s69m; not a test).

SGLang's side: its resolution, whose model hook runs `_dsa_split_backend_resolution`
(arg_groups/overrides.py:600-742, model_hook.py:344) with `_check_dsa_backend_constraints`
(:550-582), then its whole `check_server_args`; on the fake CUDA device at the GPU's
capability, or on ROCm with SGLang's own platform override (tests.oracle.sglang_hisparse_dsa_
oracle.sglang). graphfit's side: its CLI on the pasted line, with that GPU named. The targets
are sglang_hisparse_dsa_oracle.targets' (DeepSeek-V3.2, GLM-5's class, a V3 NextN head, which
no resolution pass checks), a plain DeepSeek-V3 MLA checkpoint (no `index_topk`: not DSA) and
the V3.2 with `learnable_sink`."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
import shutil
from pathlib import Path

from tests.oracle import sglang_hisparse_dsa_oracle as hdo
from tests.oracle import sglang_lora_runner_oracle as lro
from tests.oracle import sglang_stubs

GPUS = {**hdo.GPUS, "A100": (8, 0)}
BACKENDS = hdo.BACKENDS
KV = (None, None, "bf16", "fp8_e4m3", "fp8_e4m3")  # FP8 oftener: TileLang's checks need it
# the constraint's own refusals (overrides.py:558-567, 571-582), the sink arm's (:649-653)
SAID = ("The triton DSA backend is only", "CUDA TileLang FP8 KV requires",
        "CUDA TileLang FP8 KV does not", "DeepseekV3ForCausalLM uses learnable attention")


def targets(root: Path) -> dict[str, Path]:
    """hdo.targets', `mla` (DeepSeek-V3 without `index_topk`) and `sink` (the V3.2 with
    `learnable_sink`) under `root`."""
    out = hdo.targets(root)
    sglang_stubs.write_mla_model_dir(root / "mla")
    shutil.copytree(out["v32"], root / "sink")
    data = json.loads((root / "sink" / "config.json").read_text())
    (root / "sink" / "config.json").write_text(json.dumps({**data, "learnable_sink": True}))
    return {**out, "mla": root / "mla", "sink": root / "sink"}


def sglang(target: Path, argv: tuple[str, ...], gpu: str) -> tuple[str | None, bool]:
    """hdo.sglang on GPUS (the A100 as well)."""
    if gpu not in hdo.GPUS:
        from tests.oracle import sglang_oracle as so

        r = so.resolve(argv, model=str(target), capability=GPUS[gpu], checks=False)
        if isinstance(r, so.Rejected):
            return r.text, False
        said = so.check_refusal(r.record)
        return said, said is not None
    return hdo.sglang(target, argv, gpu)


def graphfit_file(target: Path, argv: tuple[str, ...], gpu: str) -> tuple[int, str]:
    """(exit status, the last `error:` line) of `graphfit plan --config` on an `engine:
    sglang` JSON file holding `target` as `model_path` and the line's flags as keys (each
    flag takes one value here: SGLang's `--config` merger writes a key back as that flag,
    utils/server_args_config_parser.py:164-181), planned for `gpu`."""
    from graphfit.cli.application import main

    keys = {flag[2:].replace("-", "_"): int(value) if value.isdigit() else value
            for flag, value in zip(argv[::2], argv[1::2], strict=True)}
    body = json.dumps({"engine": "sglang", "model_path": str(target), **keys})
    file = target.parent / f"dsa-{hashlib.sha256(body.encode()).hexdigest()[:16]}.json"
    file.write_text(body)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", gpu, "--config", str(file)])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def compare(target: Path, argv: tuple[str, ...], gpu: str, file: bool = False
            ) -> tuple[str, str]:
    """(verdict, a one-line account) as hdo.compare: agree where both start the line or both
    refuse it, with SGLang's words (its first 25 characters in graphfit's error line) where
    the constraint refused (SAID) or `check_server_args` did; differ where one refuses; other
    where both refuse for different reasons. `file`: graphfit reads the flags from its own
    config file (graphfit_file) instead of the pasted line."""
    theirs, at_check = sglang(target, argv, gpu)
    code, said = (graphfit_file(target, argv, gpu) if file
                  else lro.graphfit(target, argv, {}, gpu))
    words = theirs.split(": ", 1)[-1] if theirs else ""
    if (theirs is None) != (code == 0):
        verdict = "differ"
    elif theirs is None or not (at_check or words.startswith(SAID)):
        verdict = "agree"
    else:
        verdict = "agree" if words[:25] in said else "other"
    shown = f"{'file ' if file else ''}{target.name} {gpu} {' '.join(argv)}"
    return verdict, f"{shown}: SGLang {theirs and theirs[:90]}; graphfit {code} {said[:110]}"


def draw(rng: random.Random) -> tuple[str, tuple[str, ...], str]:
    """(target name, line after --model-path, GPU name): no HiSparse, a KV dtype or none,
    either DSA backend named or not, now and then `--dcp-size 2` on the H100."""
    name = rng.choice(("v32", "v32", "glm", "nextn", "mla", "sink"))
    gpu = rng.choice(("H100", "H100", "B200", "RTX5090", "MI300X", "A100"))
    argv: list[str] = []
    kv = rng.choice(KV)
    if kv is not None:
        argv += ["--kv-cache-dtype", kv]
    for side in ("prefill", "decode"):
        if rng.random() < 0.6:
            argv += [f"--dsa-{side}-backend", rng.choice(BACKENDS)]
    if gpu == "H100" and rng.random() < 0.15:  # (graphfit's DCP on the B200 exits "not
        argv += ["--dcp-size", "2"]            # modelled": the fabric, another rule)
    return name, tuple(argv), gpu
