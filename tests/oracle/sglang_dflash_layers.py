"""SGLang 0.5.23's target-layer resolution for DFLASH / DSPARK targets, run on CPU (issue 23, s53k).

SGLang's side is its own `_resolve_dflash_aux_hidden_state`
(model_runner_components/spec_aux_hidden_state.py:199-283) on a target / draft config pair:
the target's ModelConfig stood in by its `hf_config` (a transformers `PretrainedConfig` of the
written dict) and SGLang's own `get_hf_text_config` of it (utils/hf_transformers/common.py:
547-612), the draft's `ModelConfig.from_server_args` answering the draft's `PretrainedConfig`.
The answer is SGLang's ValueError text, or None when it resolved the layer ids. graphfit's
side is `graphfit.inputs.sglang_dflash_layers.refusal` (the function) and a pasted line
(`graphfit plan -- python -m sglang.launch_server ...`, the wiring)."""

from __future__ import annotations

import functools
import json
import tempfile
import types
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import strategies as st

from tests.helpers import run_cli
from tests.oracle import sglang_oracle as so
from tests.oracle.config_dirs import content_dir


def sglang_refusal(target: dict[str, Any], draft: dict[str, Any], dspark: bool = False,
                   loaded: bool = False) -> str | None:
    """SGLang's ValueError for this pair on the target worker, or None (ids resolved).
    `loaded` (s60d): the draft's config is the object SGLang's `get_config` loads from the
    written config.json (utils/hf_transformers/config.py:336), its `model_type`'s class with
    that class's defaults, not a bare PretrainedConfig."""
    so.oracle()
    with so.sglang_stubs.imports():
        from sglang.srt.model_executor.model_runner_components import (
            spec_aux_hidden_state as aux,
        )
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
        from sglang.srt.utils.hf_transformers.common import get_hf_text_config
    from transformers import PretrainedConfig

    written = PretrainedConfig(**target)
    model = types.SimpleNamespace(hf_config=written, hf_text_config=get_hf_text_config(written))
    if loaded:
        with so.sglang_stubs.imports():
            from sglang.srt.utils.hf_transformers.config import get_config
        directory = content_dir(_root(), json.dumps(draft, sort_keys=True))
        drafted = types.SimpleNamespace(hf_config=get_config(directory, trust_remote_code=False))
    else:
        drafted = types.SimpleNamespace(hf_config=PretrainedConfig(**draft))
    spec = types.SimpleNamespace(speculative_draft_model_path="draft",
                                 speculative_draft_model_revision=None)
    loader = types.SimpleNamespace(from_server_args=lambda *a, **k: drafted)
    algorithm = SpeculativeAlgorithm.DSPARK if dspark else SpeculativeAlgorithm.DFLASH
    config = aux.SpecAuxHiddenStateConfig()
    with so.sglang_stubs.fake_cuda(), mock.patch.object(aux, "ModelConfig", loader), \
            mock.patch.object(aux, "get_spec", lambda: spec):
        try:
            aux._resolve_dflash_aux_hidden_state(
                config=config, server_args=None, model_config=model, spec_algorithm=algorithm,
                is_draft_worker=False)
        except ValueError as exc:
            return str(exc)
    return None


def targets() -> st.SearchStrategy[dict[str, Any]]:
    """A target config: 0 to 6 layers, a loop count on some (num_loops), plain or nested
    in a text_config (which SGLang's get_hf_text_config asserts has num_attention_heads)."""
    text = st.fixed_dictionaries({"num_hidden_layers": st.integers(0, 6)},
                                 optional={"num_loops": st.integers(1, 2)})
    return st.one_of(text, text.map(lambda t: {"architectures": ["X"], "text_config": {
        **t, "num_attention_heads": 4}}))


def drafts() -> st.SearchStrategy[dict[str, Any]]:
    """A draft config: 1 to 3 layers (none on some), and target layer ids in its
    dflash_config (null there on some: the top-level ones are then not read), at the top
    level, or neither; ids from -1 to 7 (out of range for small targets)."""
    ids = st.lists(st.integers(-1, 7), min_size=1, max_size=3)
    where = st.one_of(st.just({}), st.just({}), ids.map(lambda i: {"target_layer_ids": i}),
                      ids.map(lambda i: {"dflash_config": {"target_layer_ids": i}}),
                      ids.map(lambda i: {"dflash_config": {"target_layer_ids": None},
                                         "target_layer_ids": i}))
    layers = st.one_of(st.integers(1, 3).map(lambda n: {"num_hidden_layers": n}),
                       st.just({}))
    return st.tuples(layers, where).map(lambda t: {**t[0], **t[1]})


@functools.cache
def _root() -> Path:
    return Path(tempfile.mkdtemp(prefix="graphfit-dflash-layers-"))


def model_dir(extra: dict[str, Any]) -> str:
    """The oracle's Llama config.json with `extra` keys (a target's or draft's layers)."""
    base = json.loads((so.oracle().model_dir / "config.json").read_text())
    return content_dir(_root(), json.dumps({**base, **extra}, sort_keys=True))


def pasted(target: str, *flags: str) -> str | None:
    """graphfit's error line for a pasted launch_server line, or None when it plans."""
    code, _, text = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--",
                                "python", "-m", "sglang.launch_server", "--model-path",
                                target, *flags])
    if code == 0:
        return None
    errors = [ln for ln in text.splitlines() if "error" in ln]
    return " ".join(errors) or f"exit {code}"


def check_pasted_layers(target: str, algorithm: str, draft: str, expected: str | None,
                        layers: int) -> None:
    """The pasted `--speculative-algorithm ALGORITHM` line with `draft` beside a `layers`-layer
    `target`: graphfit refuses with SGLang's `num_target_layers >= 4` sentence exactly when
    SGLang's `expected` refusal is there, and SGLang refuses exactly below 4 layers (shared by
    the DFLASH layer and text-config oracles; issue 23, s56x)."""
    error = pasted(target, "--speculative-algorithm", algorithm,
                   "--speculative-draft-model-path", draft)
    if expected is None:
        assert error is None or "num_target_layers" not in error, error
    else:
        assert error is not None and "num_target_layers >= 4" in error, error
    assert (expected is None) == (layers >= 4), (expected, layers)
