"""SGLang 0.5.23 on a HiSparse line's DSA backends and KV dtype (issue 23, s69b; not a test).

SGLang's side: its resolution, with the hisparse arm of `_dsa_split_backend_resolution`
(arg_groups/overrides.py:677-712), then its whole `check_server_args`, with
`validate_hisparse`'s dtype / backend checks (hisparse_hook.py:154-165). It runs on the fake
CUDA device at the GPU's capability, or on ROCm with SGLang's own platform override
(tests.oracle.sglang_lora_runner_oracle.sglang_rocm). graphfit's side: its CLI on the pasted
line, with that GPU named. The targets are a DeepSeek-V3.2 (a V3 with `index_topk`), GLM-5's
class, a DeepSeek-V3 NextN head served as the target (no resolution pass runs for it), and
DeepSeek-V4 (its own dtype default)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from types import ModuleType

from tests.oracle import sglang_lora_runner_oracle as lro
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

H = ("--enable-hisparse", "--disable-radix-cache")
# graphfit's GPU name -> the fake CUDA device's capability (None: ROCm, an MI300X)
GPUS: dict[str, tuple[int, int] | None] = {"H100": (9, 0), "B200": (10, 0),
                                           "RTX5090": (12, 0), "MI300X": None}
BACKENDS = ("flashmla_sparse", "flashmla_kv", "flashinfer_sparse_mla", "tilelang", "triton",
            "aiter", "fa3", "trtllm")
KV = (None, None, "bf16", "bfloat16", "fp8_e4m3")
ARCHS = {"glm": "GlmMoeDsaForCausalLM", "nextn": "DeepseekV3ForCausalLMNextN"}


def targets(root: Path) -> dict[str, Path]:
    """v32, glm, nextn (one DSA config, three architectures) and v4 under `root`."""
    from tests.oracle import sglang_post_capture_oracle as pc

    v32 = root / "v32"
    sglang_stubs.write_mla_model_dir(v32)
    data = json.loads((v32 / "config.json").read_text())
    data |= {"index_topk": 2048, "index_head_dim": 128, "index_n_heads": 64}
    (v32 / "config.json").write_text(json.dumps(data))
    out = {"v32": v32, "v4": Path(pc.model_dir("dsv4"))}
    for name, arch in ARCHS.items():
        shutil.copytree(v32, root / name)
        (root / name / "config.json").write_text(json.dumps({**data, "architectures": [arch]}))
        out[name] = root / name
    return out


# the hisparse arm's own refusals at resolution (overrides.py:558-567, 685-691)
ARM = ("CUDA TileLang FP8 KV does not support HiSparse", "The triton DSA backend is only")


def sglang(target: Path, argv: tuple[str, ...], gpu: str) -> tuple[str | None, bool]:
    """(SGLang's refusal of the line on `gpu` (GPUS) or None, whether `check_server_args`
    raised it)."""
    cap = GPUS[gpu]
    if cap is None:
        return lro.sglang_rocm(target, argv)
    r = so.resolve(argv, model=str(target), capability=cap, checks=False)
    if isinstance(r, so.Rejected):
        return r.text, False
    said = so.check_refusal(r.record)
    return said, said is not None


def compare(target: Path, argv: tuple[str, ...], gpu: str) -> tuple[str, str]:
    """(verdict, a one-line account): agree where both start the line or both refuse it,
    with SGLang's words (its message's first 25 characters in graphfit's error line) where
    `check_server_args` or the hisparse arm refused (ARM; another resolution refusal is
    graphfit's older rules'), differ where one refuses, other where both refuse for
    different reasons."""
    theirs, at_check = sglang(target, argv, gpu)
    code, said = lro.graphfit(target, argv, {}, gpu)
    words = theirs.split(": ", 1)[-1] if theirs else ""
    if (theirs is None) != (code == 0):
        verdict = "differ"
    elif theirs is None or not (at_check or words.startswith(ARM)):
        verdict = "agree"
    else:
        verdict = "agree" if words[:25] in said else "other"
    return verdict, (f"{target.name} {gpu} {' '.join(argv)}: SGLang {theirs and theirs[:90]}; "
                     f"graphfit {code} {said[:110]}")


def draw(rng: random.Random) -> tuple[str, tuple[str, ...], str]:
    """(target name, line after --model-path, GPU name): HiSparse with the radix cache off
    (mostly), a KV dtype or none, and either DSA backend named or not."""
    name = rng.choice(("v32", "v32", "glm", "nextn", "v4"))
    gpu = rng.choice(("H100", "H100", "B200", "RTX5090", "MI300X"))
    argv = list(H if rng.random() < 0.9 else H[:1])
    kv = rng.choice(KV)
    if kv is not None:
        argv += ["--kv-cache-dtype", kv]
    for side in ("prefill", "decode"):
        if rng.random() < 0.5:
            argv += [f"--dsa-{side}-backend", rng.choice(BACKENDS)]
    if rng.random() < 0.1:
        argv.append("--enable-mixed-chunk")
    return name, tuple(argv), gpu


def fixed_wrong(oracle: ModuleType, targets: dict[str, Path],
                fixed: list[tuple[str, str, str, tuple[str, ...], str | None]],
                says: dict[str, str]) -> list[str]:
    """The fixed lines (name, target, GPU, line, a `says` key or None) where `oracle`'s
    compare differs, or SGLang's refusal is not the one named (this oracle's and the DSA
    backend oracle's fixed tests)."""
    wrong = []
    for name, target, gpu, argv, where in fixed:
        theirs, _ = oracle.sglang(targets[target], argv, gpu)
        said, line = oracle.compare(targets[target], argv, gpu)
        if said != "agree" or (where is None) != (theirs is None) or (
                where is not None and says[where] not in (theirs or "")):
            wrong.append(f"{name}: {said}: {line}")
    return wrong


def drawn_wrong(oracle: ModuleType, targets: dict[str, Path], seed: int, count: int
                ) -> list[str]:
    """`count` lines `oracle` draws from `seed` where its compare does not agree."""
    rng = random.Random(seed)
    return [line for said, line in (oracle.compare(targets[n], a, g)
                                    for n, a, g in (oracle.draw(rng) for _ in range(count)))
            if said != "agree"]
