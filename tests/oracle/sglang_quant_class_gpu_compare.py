"""The comparison behind test_sglang_quant_class_gpu_oracle.py and
measure_sglang_quant_class_gpu.py: the reason SGLang 0.5.23's loader gives for a found
quantization file (quantize_config.json beside a config.json declaring none) under
`--quantization awq_marlin` / `moe_wna16` on GPUs on each side of the Marlin (SM80) and AWQ
(SM75) bars. Below them two classes refuse in `__init__` with a GPU reason of their own
(awq/awq.py:282-284 with marlin_utils.py:78-79; moe_wna16.py:96-108), before the loader's
GPU check (model_loader/loader.py:253-262).

SGLang's side: its real ModelConfig + `_get_quantization_config`
(tests.oracle.sglang_quant_capability_oracle.load) on the GPU's capability. graphfit's:
the pasted line with `--gpu-memory-gb GPU`. Each answer is sorted into a reason:
"marlin" (Marlin lists no type), "wna16" (moe_wna16 + awq below SM75), "class" (another
config-class ValueError), "capability" (the loader's bar), "crash" (SGLang's own
TypeError / ZeroDivisionError: not judged) or "passed". graphfit must give SGLang's reason.
It imports no graphfit module this work added, so the measure scores an older tree too."""

from __future__ import annotations

import itertools
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from graphfit.inputs.gpus import gpu_capability
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle import sglang_quant_weight_class_compare as wc
from tests.oracle.sglang_quant_capability_compare import LOADER, llama_dir, planned
from tests.oracle.sglang_quant_weight_class_compare import MARKS

# one GPU below each bar, one between them, two past both
GPUS = ("T4", "A10", "A100", "H100")
FLAGS = ("awq_marlin", "moe_wna16")
MARLIN = "Only types = []"
DTYPE = "model_loader/loader.py:263-270"  # the loader's dtype check, after its GPU check
WNA16 = "moe_wna16 + awq is not supported"
_ABSENT = object()
_POOLS: dict[str, tuple[object, ...]] = {
    "quant_method": ("awq", "awq", "gptq", _ABSENT),
    "bits": (4, 4, 8, 3, 0, "4", _ABSENT),
    "group_size": (128, 64, -1, 100, _ABSENT),
    "zero_point": (True, True, False, None, _ABSENT),
    "sym": (True, False, _ABSENT),
}


def reason(said: str, *, sglang: bool) -> str:
    """The kind of refusal `said` is (SGLang's message, or graphfit's error line)."""
    if MARLIN in said:
        return "marlin"
    if WNA16 in said:
        return "wna16"
    if sglang:
        head = said.split(":")[0]
        if "Error" in head:
            return "crash"
        if "Minimum capability" in said:
            return "capability"
        return "class" if said else "passed"
    if LOADER in said:
        return "capability"
    if DTYPE in said:
        return "dtype"
    return "class" if any(mark in said for mark in MARKS) else "refused"


def body(rng: random.Random) -> dict[str, Any]:
    """A quantize_config.json body: each key drawn present (a value of its pool) or absent."""
    drawn = {key: rng.choice(pool) for key, pool in _POOLS.items()}
    return {key: value for key, value in drawn.items() if value is not _ABSENT}


def sglang_reason(flag: str | None, folder: str, capability: int) -> str:
    return _sglang_reason(co.load(flag, None, capability, folder))


def _sglang_reason(theirs: co.Answer) -> str:
    if MARLIN in theirs.said or WNA16 in theirs.said:  # a class's own GPU reason
        return reason(theirs.said, sglang=True)
    if co.dtype_refused(theirs):
        return "dtype"
    if theirs.stage in ("verify", "args"):
        return "refused"  # ModelConfig / the arguments: other rules' words
    if theirs.stage in ("passed", "none"):
        return "passed"  # a dtype refusal after the check is not this comparison's
    if theirs.stage == "capability":
        return "capability"
    return reason(theirs.said, sglang=True)


def compare(flag: str, content: dict[str, Any], gpu: str) -> tuple[str, str | None]:
    """(SGLang's reason, a disagreement or None) for one found file on one named GPU."""
    folder = llama_dir("graphfit-quant-class-gpu-", None)
    (Path(folder) / "quantize_config.json").write_text(json.dumps(content))
    cap = gpu_capability(gpu)
    assert cap is not None
    code, said = planned(folder, ("--quantization", flag), gpu)
    return _verdict(sglang_reason(flag, folder, cap), code, said,
                    f"--quantization {flag} on {json.dumps(content)[:90]} ({gpu})")


def _verdict(theirs: str, code: int, said: str, line: str) -> tuple[str, str | None]:
    """(SGLang's reason `theirs`, None where graphfit's exit `code` and error `said` give the
    same reason or SGLang crashed, else the disagreement on `line`)."""
    ours = reason(said, sglang=False) if code == 2 else "passed"
    if theirs == "crash" or theirs == ours:
        return theirs, None
    return theirs, f"{line}: SGLang {theirs}, graphfit {code} {said[:160]}"


def _triples(count: int, seed: int, places: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """`count` (flag, body, place) triples: each seeded body under both flags at every one
    of `places`."""
    rng = random.Random(seed)
    bodies = [body(rng) for _ in range(max(1, count // (len(FLAGS) * len(places))))]
    return [(flag, content, place)
            for content, flag, place in itertools.product(bodies, FLAGS, places)]


def lines(count: int, seed: int) -> list[tuple[str, dict[str, Any], str]]:
    """`count` (flag, body, GPU) triples: each seeded body under both flags on every GPU."""
    return _triples(count, seed, GPUS)


# capabilities no named GPU has (V100 7.0, P100 6.0), and T4's: a config file's
# gpu_capability reaches them
FILE_CAPABILITIES = (60, 70, 75)


def planned_file(folder: str, flag: str, capability: int) -> tuple[int, str]:
    """graphfit's (exit code, last error line) on `graphfit plan --gpu-memory-gb 16 --config
    FILE`, the file naming the model, the flag and `gpu_capability`."""
    content = {"engine": "sglang", "model_path": folder, "quantization": flag,
               "gpu_capability": capability}
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        handle.write(json.dumps(content))  # JSON is YAML
    code, _, output = sc.run_graphfit(["plan", "--gpu-memory-gb", "16", "--config",
                                       handle.name])
    Path(handle.name).unlink()
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else "")


def compare_file(flag: str, content: dict[str, Any], capability: int
                 ) -> tuple[str, str | None]:
    """(SGLang's reason, a disagreement or None) for one found file, the GPU given as a
    graphfit config file's gpu_capability."""
    folder = llama_dir("graphfit-quant-class-gpu-file-", None)
    (Path(folder) / "quantize_config.json").write_text(json.dumps(content))
    code, said = planned_file(folder, flag, capability)
    return _verdict(sglang_reason(flag, folder, capability), code, said,
                    f"config file: quantization {flag} on {json.dumps(content)[:90]} "
                    f"(SM{capability})")


def file_lines(count: int, seed: int) -> list[tuple[str, dict[str, Any], int]]:
    """`count` (flag, body, capability) triples: seeded bodies under both flags on each of
    FILE_CAPABILITIES."""
    return _triples(count, seed, FILE_CAPABILITIES)


def compare_config_json(flag: str, layout: str, capability: int) -> tuple[str, str | None]:
    """(SGLang's reason, a disagreement or None) for config.json's own quantization_config
    (tests.oracle.sglang_quant_weight_class_compare.CONFIG_LAYOUTS), the GPU given as a
    config file's gpu_capability: where the method hangs on the GPU, ModelConfig's refusal
    on that GPU comes before the class's."""
    folder = wc.config_dir(layout)
    theirs = _sglang_reason(co.load(flag, wc.CONFIG_LAYOUTS[layout], capability, folder))
    code, said = planned_file(folder, flag, capability)
    return _verdict(theirs, code, said,
                    f"config file: quantization {flag} on config.json {layout} (SM{capability})")


def config_json_lines() -> list[tuple[str, str, int]]:
    """Every (flag, config.json layout, capability) of FLAGS, the AWQ / GPTQ layouts and
    FILE_CAPABILITIES."""
    layouts = [name for name in wc.CONFIG_LAYOUTS if name.startswith(("awq", "gptq"))]
    return list(itertools.product(FLAGS, layouts, FILE_CAPABILITIES))
