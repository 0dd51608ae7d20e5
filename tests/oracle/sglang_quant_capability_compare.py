"""The comparison behind test_sglang_quant_capability_oracle.py and
measure_sglang_quant_capability.py: one (--quantization, config.json quantization_config,
named GPU) line read whole by graphfit (`graphfit plan --gpu-memory-gb GPU -- python -m
sglang.launch_server --model-path DIR ...`) and run through SGLang's server-argument checks,
ModelConfig and model loader (tests.oracle.sglang_quant_capability_oracle). It imports no
module this rule added, so the measure runs on an older graphfit tree too."""

from __future__ import annotations

import functools
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from graphfit.inputs.gpus import gpu_capability
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle import sglang_quantization_oracle as qo

# named GPUs on each side of every bar (75, 80, 89, 90, 100) and past it (SM 12.0)
GPUS = ("T4", "A10", "A100", "L4", "H100", "B200", "RTX5090")
FLAGS = qo.FLAGS + qo.MORE_FLAGS
LAYOUTS: tuple[str | None, ...] = (None, *sorted(qo.LAYOUTS))
LOADER = "model_loader/loader.py:253-262"
# where graphfit cites the loader's reading of the quantization config, before that check
# (graphfit.inputs.sglang_quant_config_file)
READ_SITES = ("model_loader/weight_utils.py:", "modelopt_quant.py:", "fp8.py:346-350")
_LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024,
          "intermediate_size": 2816, "num_hidden_layers": 4, "num_attention_heads": 16,
          "num_key_value_heads": 4, "vocab_size": 32000, "max_position_embeddings": 4096,
          "torch_dtype": "bfloat16"}


def llama_dir(prefix: str, quantization: dict[str, Any] | None) -> str:
    """A new small Llama checkpoint directory (named from `prefix`) whose config.json carries
    `quantization` as its quantization_config (none when None)."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    config: dict[str, Any] = dict(_LLAMA)
    if quantization is not None:
        config["quantization_config"] = quantization
    (root / "config.json").write_text(json.dumps(config))
    return str(root)


@functools.cache
def model_dir(layout: str | None) -> str:
    """A small Llama checkpoint directory whose config.json carries the layout."""
    return llama_dir("graphfit-quant-cap-", None if layout is None else qo.LAYOUTS[layout])


def planned(model: str, args: tuple[str, ...], gpu: str) -> tuple[int, str]:
    """graphfit's (exit code, last error line) on `python -m sglang.launch_server
    --model-path MODEL ARGS` pasted into `graphfit plan --gpu-memory-gb GPU`."""
    code, said, _ = sc.pasted_plan(("python", "-m", "sglang.launch_server", "--model-path",
                                    model, *args), gpu)
    return code, said


def past_the_class(where: str, theirs: co.Answer, said: str, cited: bool
                   ) -> tuple[str, str | None]:
    """A line SGLang's loader got past the config class on: "built" (or "other" where it
    stopped elsewhere), with a disagreement where graphfit still cites a class's lines. The
    tail the config-class compares share (weight classes, compressed-tensors, auto-round /
    quark)."""
    verdict = "built" if theirs.stage in ("passed", "capability", "none") else "other"
    if cited:
        return verdict, f"{where}: SGLang {theirs.stage} {theirs.method} " \
                        f"{theirs.said[:80]}; graphfit {said}"
    return verdict, None


def graphfit_line(flag: str | None, layout: str | None, gpu: str) -> tuple[int, str]:
    """graphfit's (exit code, last error line) on the pasted line."""
    quant = () if flag is None else ("--quantization", flag)
    return planned(model_dir(layout), quant, gpu)


def compare(flag: str | None, layout: str | None, gpu: str) -> tuple[str, str | None]:
    """(SGLang's stage, a disagreement or None) on one line."""
    cap = gpu_capability(gpu)
    assert cap is not None
    theirs = co.load(flag, None if layout is None else qo.LAYOUTS[layout], cap)
    code, said = graphfit_line(flag, layout, gpu)
    ours = LOADER in said
    where = f"--quantization {flag} on {layout} with {gpu}"
    if theirs.stage == "capability":
        need = re.search(r"below compute capability (\d+)", said)
        if not ours or need is None or int(need.group(1)) != theirs.need:
            return theirs.stage, (f"{where}: SGLang needs {theirs.need} ({theirs.method}); "
                                  f"graphfit {code} {said}")
    elif theirs.stage == "args" and code != 2:
        return theirs.stage, (f"{where}: SGLang's arguments refuse ({theirs.said[:90]}); "
                              f"graphfit plans")
    elif theirs.stage in ("passed", "none") and ours:
        return theirs.stage, f"{where}: SGLang passes its check ({theirs.method}); graphfit {said}"
    return theirs.stage, None


def loader_refuses(argv: tuple[str, ...], said: str, model: str | None = None) -> bool:
    """Whether a whole pasted line's refusal by graphfit (`said`) is the loader's GPU check
    and SGLang's own loader refuses the line's (--quantization, config.json
    quantization_config, named GPU) with the same bar, or the loader's reading of the config
    (file search, config class) and SGLang's loader stops before that check. For oracles
    that stop at the server arguments (the a2a oracle): a line they accept may still not
    load. `model`: the directory a line without --model-path runs on; the reading stops
    before the GPU check, so it needs no named GPU (Hopper is asked)."""
    read = any(site in said for site in READ_SITES)  # the loader's reading (s45q, s47q)
    if "--model-path" in argv:
        model = argv[argv.index("--model-path") + 1]
    if not (LOADER in said or read) or model is None or (
            "--gpu-memory-gb" not in argv and not read):
        return False
    named = argv[argv.index("--gpu-memory-gb") + 1] if "--gpu-memory-gb" in argv else "H100"
    cap = gpu_capability(named)
    if cap is None:
        return False
    flag = argv[argv.index("--quantization") + 1] if "--quantization" in argv else None
    folder = Path(model)
    config = json.loads((folder / "config.json").read_text())
    theirs = co.load(flag, config.get("quantization_config"), cap, model_dir=str(folder))
    if read:  # SGLang's loader stops before its GPU check too (file search, config class)
        return theirs.stage == "before"
    need = re.search(r"below compute capability (\d+)", said)
    return theirs.stage == "capability" and need is not None and int(need.group(1)) == theirs.need
