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
    """Each generated line: the same context length, or refused by both, or (a class
    graphfit does not know, t.UNKNOWN_TYPES) graphfit's warning asking for --context-length;
    the same request pool on a --max-total-tokens line."""
    model, argv, env = t.case(random.Random(1000 + seed), _ROOT)
    assert t.verdict(model, argv, env) in ("agree", "refused", "asked"), (argv, env)
    assert t.pool_verdict(model, argv, env) in ("agree", "refused", "asked", "n/a"), (argv, env)


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


@pytest.mark.parametrize("seed", range(8))
def test_generated_draft_lines_agree(seed: int) -> None:
    """A STANDALONE line with a local draft: the draft worker's context length (the
    target's) or SGLang's refusal of a draft shorter than the target, by both."""
    model, draft, argv, env = t.draft_case(random.Random(2000 + seed), _ROOT)
    assert t.draft_verdict(model, draft, argv, env) in ("agree", "refused", "asked"), argv


NO_KEY_EDGES: list[tuple[dict[str, Any], tuple[str, ...]]] = [
    # no length key: the class default, scaled by a linear dict like a written length
    ({"model_type": "llama"}, ()),
    ({"model_type": "qwen2", "rope_scaling": LINEAR}, ()),
    ({"model_type": "mistral"}, ("--context-length", "262144")),
    ({"model_type": "phi3"}, ()),
    ({"model_type": "gpt2"}, ()),
    # the GPT-2 family's n_positions is max_position_embeddings (attribute_map)
    ({"model_type": "gpt2", "n_positions": 16384}, ()),
    ({"model_type": "gptj", "n_positions": 16384, "max_position_embeddings": 4096}, ()),
]


@pytest.mark.parametrize(("written", "argv"), NO_KEY_EDGES)
def test_class_defaults_agree(written: dict[str, Any], argv: tuple[str, ...]) -> None:
    config = {k: v for k, v in t.BASE.items()}
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps({**config, **written}))
    assert t.verdict(str(directory), argv, {}) in ("agree", "refused"), (written, argv)


def test_unknown_class_default_is_asked_in_one_line() -> None:
    """A class whose default graphfit does not restate: SGLang takes it (a number), graphfit
    warns in one line asking for --context-length, and follows the flag once given."""
    model = _model(model_type="biogpt")
    assert isinstance(t.sglang_length(model, (), {}), int)
    asked = t.graphfit_asks(model, (), {})
    assert asked is not None and "\n" not in asked and len(asked) <= 200, asked
    assert "--context-length" in asked
    argv = ("--context-length", "1024")
    assert t.graphfit_asks(model, argv, {}) is None
    assert t.sglang_length(model, argv, {}) == t.graphfit_length(model, argv, {}) == 1024


@pytest.mark.parametrize(("length", "env"), [(4096, {}), (8192, {}), (8192, {t.ALLOW: "1"})])
def test_config_file_context_length_checked(length: int, env: dict[str, str]) -> None:
    """`context_length` and `model_path` in a graphfit config file: refused or kept as
    SGLang refuses or keeps the same --context-length (configs/model_config.py:1295-1316)."""
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError

    model = _model(max_position_embeddings=4096)
    path = Path(tempfile.mkdtemp(dir=_ROOT)) / "graphfit.json"
    path.write_text(json.dumps({"engine": "sglang", "model_path": model,
                                "context_length": length}))
    sg = t.sglang_length(model, ("--context-length", str(length)), env)
    try:
        gf: int | str = build_config({"gpu_memory_gb": "H100", "engine": "sglang",
                                      "config_file": str(path)},
                                     environ=env).max_model_len
    except GraphfitError as exc:
        gf = str(exc)
    assert sg == gf or (isinstance(sg, str) and isinstance(gf, str)), (sg, gf)


@pytest.mark.parametrize("kind", t.ALIASED)
@pytest.mark.parametrize("both", [False, True])
def test_gpt2_names_read_as_transformers_reads_them(kind: str, both: bool) -> None:
    """The GPT-2 family's n_embd / n_positions (attribute_map): SGLang's hidden size and
    context length (ModelConfig, via the config object) equal graphfit's, with only the
    class's names written, or both spellings with different values."""
    from graphfit.cli.options import build_config

    t.so.oracle()
    from sglang.srt.arg_groups.model_override_base import model_config_of

    written: dict[str, Any] = {k: v for k, v in t.BASE.items()
                               if k not in ("hidden_size", "num_hidden_layers")}
    written.update(model_type=kind, n_embd=2048, n_layer=12, n_positions=16384)
    if both:
        written.update(hidden_size=3072, num_hidden_layers=20, max_position_embeddings=4096)
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps(written))
    r = t.so.resolve((), model=str(directory))
    assert isinstance(r, t.so.Resolved), r
    sg = model_config_of(r.record)
    gf = build_config({"gpu_memory_gb": "H100"}, environ={}, pasted=[
        "python", "-m", "sglang.launch_server", "--model-path", str(directory)])
    assert (sg.hidden_size, sg.context_len) == (gf.hidden_size, gf.max_model_len)


# XGLM (issue 23 s45l): transformers' XGLMConfig, max_position_embeddings 2048 by default and
# its own names for the width, depth and heads (xglm/configuration_xglm.py:43-50)
_XGLM_NAMES = {"hidden_size": "d_model", "num_hidden_layers": "num_layers",
               "num_attention_heads": "attention_heads"}


@pytest.mark.parametrize("renamed", [False, True])
@pytest.mark.parametrize("written", [None, 4096])
@pytest.mark.parametrize(("flag", "env"), [(None, {}), ("2048", {}), ("2049", {}),
                                           ("8192", {}), ("8192", {t.ALLOW: "1"})])
def test_xglm_class_default_is_sglangs(renamed: bool, written: int | None, flag: str | None,
                                       env: dict[str, str]) -> None:
    """An XGLM file with no length key (or one), under its own names or the standard ones,
    with a --context-length at, just above or far above the class default: the same length
    as SGLang's, or refused by both -- never asked (graphfit restates the class)."""
    config: dict[str, Any] = {"model_type": "xglm", "architectures": ["XGLMForCausalLM"]}
    if written is not None:
        config["max_position_embeddings"] = written
    model = _model(**config)
    if renamed:
        path = Path(model) / "config.json"
        data = json.loads(path.read_text())
        for name, own in _XGLM_NAMES.items():
            data[own] = data.pop(name)
        path.write_text(json.dumps(data))
    argv = () if flag is None else ("--context-length", flag)
    assert t.verdict(model, argv, env) in ("agree", "refused"), (config, argv, env)
    if written is None and flag == "2049" and not env:  # non-vacuous: the default is checked
        assert isinstance(t.sglang_length(model, argv, env), str)
        assert isinstance(t.graphfit_length(model, argv, env), str)
