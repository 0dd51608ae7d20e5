"""SGLang 0.5.23's default mem_fraction_static with SGLANG_ENABLE_POST_CAPTURE_KV_SIZING set,
unset or unparsable, and graphfit's for the same line pasted with that environment prefix
(shared by tests/oracle/test_sglang_post_capture_oracle.py and
tests/oracle/measure_sglang_post_capture.py).

SGLang's side runs its own resolution pipeline (prepare_server_args + the hooks, the Muse Spark
environment defaults and the memory hook: `sglang_prefill_oracle.mem_fraction`) with the
variable in os.environ; the whole environment is restored afterwards, since the Muse Spark hook
writes its defaults into it (muse_spark_hook.py:50-54). SGLang's own
`post_capture_kv_sizing_planned` answer is recorded as the memory hook asks it, only to show the
grid is not vacuous: graphfit decides it itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_prefill_oracle as po
from tests.oracle import sglang_stubs

ENV = "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"
AMPERE = (8, 0)  # the Qwen3-VL large-Hopper decode override stays out of the comparison
MUSE = "MuseSparkForConditionalGeneration"
_MODELS: dict[str, str] = {}


# the fields SGLang's ModelConfig reads for a DeepSeek-V4 class on top of the Llama shapes
# (configs/model_config.py:1418-1428: an MHA model, hybrid SWA, :2651-2660)
DSV4_FIELDS = {"qk_rope_head_dim": 64, "head_dim": 512, "sliding_window": 128,
               "index_head_dim": 128, "compress_ratios": [0, 4, 128, 4], "num_hidden_layers": 4,
               "rope_scaling": None}
SPARSE = {"dsv4": ("DeepseekV4ForCausalLM", DSV4_FIELDS),
          # per_head: the default per_layer QK norm cannot be built at attention TP > 1
          # (models/minimax_m3.py:858-865; graphfit.inputs.sglang_minimax_target)
          "minimax": ("MiniMaxM3SparseForCausalLM", {"qk_norm_type": "per_head"}),
          "minimax_vl": ("MiniMaxM3SparseForConditionalGeneration", {"qk_norm_type": "per_head"}),
          # hybrid-SWA models, for --enable-unified-memory (configs/model_config.py:2651-2697)
          "gemma4": ("Gemma4ForCausalLM", {}),
          "swa_optin": ("MistralForCausalLM", {"is_hybrid_swa": True}),
          "beam_full": ("BeamForCausalLM", {"layer_types": ["full_attention"] * 32}),
          "beam_swa": ("BeamForCausalLM", {"layer_types": ["sliding_attention"] * 32})}


def model_dir(name: str) -> str:
    """A model directory: `llama` (text), `muse` (Muse Spark), `vl` (a small Qwen3-VL), `mla`
    (DeepSeek-V3-shaped), or one of SPARSE: a Llama-shaped config.json under another class
    (DeepSeek-V4 and MiniMax-M3 sparse; hybrid-SWA models), with that class's own fields."""
    if name not in _MODELS:
        root = Path(tempfile.mkdtemp(prefix="graphfit-post-capture-")) / name
        if name in SPARSE:
            architecture, fields = SPARSE[name]
            sglang_stubs.write_model_dir(root, architecture=architecture)
            data = json.loads((root / "config.json").read_text())
            (root / "config.json").write_text(json.dumps({**data, **fields}))
        elif name == "llama":
            sglang_stubs.write_model_dir(root)
        elif name == "vl":
            sglang_stubs.write_qwen3_vl_model_dir(root, 4, 1024)
        elif name == "mla":
            sglang_stubs.write_mla_model_dir(root)
        else:
            sglang_stubs.write_model_dir(root, architecture=MUSE)
            data = json.loads((root / "config.json").read_text())
            # ViT-L/14's size: SGLang reads a dict vision_config through getattr defaults
            # (24, 1024, memory_hook.py:440-441), graphfit the dict's values: the same
            data["vision_config"] = {"num_hidden_layers": 24, "hidden_size": 1024}
            (root / "config.json").write_text(json.dumps(data))
        _MODELS[name] = str(root)
    return _MODELS[name]


def register(name: str, path: str) -> None:
    """Another oracle's model directory, under `name` for model_dir (issue 23 s42u)."""
    _MODELS.setdefault(name, path)


@contextlib.contextmanager
def environment(value: str | None, extra: tuple[tuple[str, str], ...] = ()
                ) -> Iterator[list[bool]]:
    """The variable set to `value` (None: unset) for one SGLang resolution, the environment
    restored after it, and SGLang's own planned answers as the memory hook gets them."""
    so.oracle()
    from sglang.srt.arg_groups import memory_hook

    asked: list[bool] = []
    real = memory_hook.post_capture_kv_sizing_planned

    def spy(server_args: object) -> bool:
        answer = bool(real(server_args))
        asked.append(answer)
        return answer

    saved = dict(os.environ)
    os.environ.pop(ENV, None)
    if value is not None:
        os.environ[ENV] = value
    os.environ.update(extra)
    memory_hook.post_capture_kv_sizing_planned = spy
    try:
        yield asked
    finally:
        memory_hook.post_capture_kv_sizing_planned = real
        os.environ.clear()
        os.environ.update(saved)


def sglang_fraction(argv: tuple[str, ...], gb: float, name: str, value: str | None,
                    extra: tuple[tuple[str, str], ...] = ()
                    ) -> tuple[float, bool | None] | None:
    """SGLang's fraction and its planned answer (None: not asked), or None where SGLang
    refuses the line; `extra`: other variables in its environment."""
    with environment(value, extra) as asked:
        got = po.mem_fraction.__wrapped__(argv, gb, model_dir(name), AMPERE)
    if isinstance(got, so.Rejected):
        return None
    return got[1], (asked[-1] if asked else None)


def graphfit_line(argv: tuple[str, ...], name: str, value: str | None,
                  extra: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """The line as a user pastes it: the environment prefix, then SGLang's launcher."""
    prefix = [f"{k}={v}" for k, v in extra] + ([] if value is None else [f"{ENV}={value}"])
    return [*prefix, "python", "-m", "sglang.launch_server", "--model-path", model_dir(name),
            *argv]


def graphfit_fraction(line: list[str], gb: float) -> float | str | None:
    """graphfit's mem_fraction_static for a pasted line, or its refusal's message."""
    return po.pasted_mem_fraction(line, gb)


def disagreement(theirs: float, ours: float | str | None) -> str | None:
    """None where graphfit agrees: the same fraction, or none where SGLang's is not positive
    (graphfit leaves it unset and warns)."""
    if isinstance(ours, str):
        return None if "not modelled" in ours else f"graphfit refused: {ours}"
    if theirs <= 0:
        return None if ours is None else f"SGLang {theirs} (not positive), graphfit {ours}"
    return None if ours == theirs else f"SGLang {theirs}, graphfit {ours}"


VALUES = (None, "1", "true", "YES", "y", "0", "false", "No", "bogus", "", "on", "2")
MODELS = ("llama", "muse", "vl", "mla")
GPUS = (24, 48, 80, 141)
DECLINING = ("--enable-kv-cache-sharding", "--enable-memory-saver",
             "--prefill-only-disable-kv-cache")
