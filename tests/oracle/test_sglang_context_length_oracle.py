"""SGLang's context length (ModelConfig.context_len, configs/model_config.py:1291-1329 ->
get_context_length, utils/hf_transformers/common.py:677-700) vs graphfit's max_model_len on
SGLang lines, and the request pool SGLang sizes from it (kv_cache_configurator.py:
3119-3132), over generated config.json files and named edges
(tests/oracle/sglang_context_length_oracle.py). Larger counts:
`python -m tests.oracle.measure_sglang_context_length`."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.oracle import sglang_context_length_oracle as t
from tests.oracle.paths import require

require("sglang")

_ROOT = tempfile.mkdtemp(prefix="graphfit-context-length-test-")


def _model(**written: Any) -> str:
    config = dict(t.BASE)
    config.update(written)
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps(config))
    return str(directory)


@pytest.mark.parametrize("seed", range(24))
def test_generated_lines_agree(seed: int) -> None:
    """Each generated line: the same context length, or refused by both; the same request
    pool on a --max-total-tokens line."""
    model, argv, env = t.case(random.Random(1000 + seed), _ROOT)
    assert t.verdict(model, argv, env) in ("agree", "refused"), (argv, env)
    assert t.pool_verdict(model, argv, env) in ("agree", "refused", "n/a"), (argv, env)


LINEAR = {"rope_type": "linear", "factor": 4.0}
EDGES: list[tuple[dict[str, Any], tuple[str, ...]]] = [
    # the factor scales a linear / dynamic dict, truncated to an int
    ({"max_position_embeddings": 4096, "rope_scaling": LINEAR}, ()),
    ({"max_position_embeddings": 4097, "rope_scaling": {"type": "dynamic", "factor": 1.5}}, ()),
    # yarn / llama3 / a dict with original_max_position_embeddings: not scaled
    ({"max_position_embeddings": 4096, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}},
     ()),
    ({"max_position_embeddings": 4096,
      "rope_scaling": {"type": "dynamic", "factor": 2.0,
                       "original_max_position_embeddings": 2048}}, ()),
    # the first key wins, not the smallest (vLLM's rule)
    ({"seq_length": 32768, "model_max_length": 4096, "max_position_embeddings": 2048}, ()),
    ({"max_sequence_length": 2048, "max_position_embeddings": 131072,
      "rope_scaling": LINEAR}, ()),
    # override args: a yarn dict given by `type` keeps the written rope_type (scaled), by
    # `rope_type` is standardized again (not scaled); rope_parameters is not standardized
    ({"max_position_embeddings": 4096},
     ("--json-model-override-args", '{"rope_scaling": {"type": "yarn", "factor": 4.0}}')),
    ({"max_position_embeddings": 4096},
     ("--json-model-override-args", '{"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}')),
    ({"max_position_embeddings": 4096},
     ("--json-model-override-args",
      '{"rope_parameters": {"rope_type": "yarn", "factor": 4.0}}')),
    ({"max_position_embeddings": 4096, "rope_scaling": LINEAR},
     ("--json-model-override-args", '{"rope_scaling": null}')),
    # --context-length: at the derived length kept; above it refused
    ({"max_position_embeddings": 4096, "rope_scaling": LINEAR}, ("--context-length", "16384")),
    ({"max_position_embeddings": 4096, "rope_scaling": LINEAR}, ("--context-length", "16385")),
    ({"max_position_embeddings": 4096}, ("--context-length", "1024")),
]


@pytest.mark.parametrize(("written", "argv"), EDGES)
def test_edges_agree(written: dict[str, Any], argv: tuple[str, ...]) -> None:
    model = _model(**written)
    assert t.verdict(model, argv, {}) in ("agree", "refused"), (written, argv)


@pytest.mark.parametrize(("value", "allowed"), [("1", True), ("yes", True), ("0", False),
                                                ("maybe", False)])
def test_longer_context_needs_the_variable(value: str, allowed: bool) -> None:
    """A --context-length above the derived one: kept with the variable true, else refused
    (configs/model_config.py:1295-1316), by both."""
    model = _model(max_position_embeddings=4096, rope_scaling=LINEAR)
    argv, env = ("--context-length", "65536"), {t.ALLOW: value}
    sg, gf = t.sglang_length(model, argv, env), t.graphfit_length(model, argv, env)
    if allowed:
        assert sg == gf == 65536, (sg, gf)
    else:
        assert isinstance(sg, str) and isinstance(gf, str), (sg, gf)


def test_graphfit_error_is_one_line() -> None:
    model = _model(max_position_embeddings=4096)
    gf = t.graphfit_length(model, ("--context-length", "8192"), {})
    assert isinstance(gf, str) and "\n" not in gf and len(gf) <= 200, gf
    assert t.ALLOW in gf


def test_scaled_length_sizes_the_request_pool() -> None:
    """The plan-level effect: on a --max-total-tokens line the request pool follows the
    scaled length in SGLang and graphfit alike (here 4x a 32768-token model)."""
    model = _model(max_position_embeddings=32768, rope_scaling=LINEAR)
    argv = ("--max-total-tokens", "400000")
    assert t.pool_verdict(model, argv, {}) == "agree"
    assert t.sglang_length(model, argv, {}) == t.graphfit_length(model, argv, {})
