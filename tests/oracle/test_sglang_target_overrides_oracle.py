"""`--json-model-override-args` on the TARGET model's config.json vs SGLang 0.5.23.

SGLang applies the override args to the target's HF config before any hook or runner reads
it (configs/model_config.py:612-626 -> utils/hf_transformers/config.py:405-424); graphfit's
readers of the target's config.json see the same overridden config
(graphfit.inputs.target_overrides). Compared against SGLang's own resolve on CPU
(tests/oracle/sglang_target_overrides.py): the model facts its ModelConfig holds and the
architecture-dependent multi-layer EAGLE default, over generated override objects; a
composite (Qwen3-VL) config's nested text / vision sub-configs; the live path
(graphfit.inputs.sglang_live); bad JSON as one error line.
"""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit.inputs import model_config, target_overrides
from tests.helpers import run_cli
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_target_overrides as t

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def _agree(gpu: str, base: str, argv: tuple[str, ...]) -> list[str]:
    model = t.dirs()[base]
    out = []
    facts = t.facts_verdict(argv, model, gpu)
    if facts.startswith("differ"):
        out.append(f"facts {gpu} {base} {argv[-1]}: {facts}")
    default = t.default_verdict(argv, model, gpu)
    if default.startswith(("differ", "skip")):
        out.append(f"default {gpu} {base} {argv[-1]}: {default}")
    return out


# lines whose override moves what graphfit reads (each differs when the override is ignored)
EDGES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("H100", "llama", {"architectures": ["Olmo2ForCausalLM"]}),
    ("B200", "olmo2", {"architectures": ["LlamaForCausalLM"], "hidden_size": 2048}),
    ("A100", "llama", {"vocab_size": 32000, "max_position_embeddings": 8192}),
    ("H100", "GptOssForCausalLM", {"architectures": ["MistralForCausalLM"]}),
    ("B200", "llama", {"learnable_sink": True}),
    ("H100", "asym", {"v_head_dim": 128, "hidden_size": 5120}),
)


@pytest.mark.parametrize(("gpu", "base", "overrides"), EDGES)
def test_override_edges_match_sglang(gpu: str, base: str, overrides: dict[str, Any]) -> None:
    """Architecture, widths, vocabulary, length, sinks and the V head moved by the override
    args: graphfit's facts and multi-layer EAGLE default equal SGLang's."""
    assert not _agree(gpu, base, t.line(overrides, 1))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_generated_override_lines(seed: int) -> None:
    """Generated override objects (1-3 keys, drawn order) over the Llama-shaped directories."""
    gpu, base, argv = t.case(random.Random(seed))
    assert not _agree(gpu, base, argv)


def test_ignoring_the_overrides_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted error: the target's config read as written. Most EDGES lines then differ."""
    monkeypatch.setattr(target_overrides, "applied",
                        lambda config, value: contextlib.nullcontext())
    differ = [e for e in EDGES if _agree(e[0], e[1], t.line(e[2], 1))]
    assert len(differ) >= 4, differ


def _vl_facts(overrides: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(SGLang, graphfit) text width, layers, vision layers and width, M-RoPE for the Qwen3-VL
    directory with `overrides`."""
    so.oracle()  # SGLang's sources on the path
    from sglang.srt.arg_groups.model_override_base import model_config_of

    from graphfit.cli.options import build_config

    model = t.dirs()["vl"]
    argv = ("--max-running-requests", "8", "--json-model-override-args", json.dumps(overrides))
    r = so.resolve(argv, gpu_mem_gb=80, model=model)
    assert isinstance(r, so.Resolved), r
    mc = model_config_of(r.record)
    vision = mc.hf_config.vision_config
    rope = getattr(mc.hf_text_config, "rope_scaling", None) or getattr(
        mc.hf_text_config, "rope_parameters", None) or {}
    sg = {"hidden_size": mc.hidden_size, "vocab_size": mc.vocab_size,
          "vision_layers": vision.num_hidden_layers,
          "vision_hidden_size": vision.hidden_size, "mrope": "mrope_section" in rope}
    config = build_config({}, environ={}, pasted=[
        "python", "-m", "sglang.launch_server", "--model-path", model, *argv])
    path = Path(model) / "config.json"
    with target_overrides.applied(path, json.dumps(overrides)):  # M-RoPE: the reader itself
        mrope = model_config.read_model(path).mrope
    gf = {"hidden_size": config.hidden_size, "vocab_size": config.vocab_size,
          "vision_layers": config.vision_layers,
          "vision_hidden_size": config.vision_hidden_size, "mrope": mrope}
    return sg, gf


@pytest.mark.parametrize("overrides", [
    {"text_config": {"hidden_size": 2048}},
    {"text_config": {"vocab_size": 1000}},
    {"vision_config": {"depth": 2}},
    {"vision_config": {"depth": 2, "hidden_size": 512}},
    {"text_config": {"rope_scaling": {"factor": 1.0}}, "vision_config": {"depth": 3}},
])
def test_nested_sub_configs_merge_as_in_sglang(overrides: dict[str, Any]) -> None:
    """A dict for a composite config's text / vision sub-config updates it key by key
    (`PretrainedConfig.update`), the other keys kept: graphfit's text width, vision size
    and M-RoPE equal SGLang's ModelConfig on the same directory and line."""
    sg, gf = _vl_facts(overrides)
    assert sg == gf


def test_the_live_path_reads_the_overridden_target(tmp_path: Path) -> None:
    """graphfit.inputs.sglang_live (from_sglang): the target's hidden size and vocabulary
    as the running server's ModelConfig holds them, the override args applied."""
    from graphfit.inputs.sglang_live import config_settings

    model = t.dirs()["llama"]
    argv = ("--json-model-override-args", json.dumps({"hidden_size": 2048,
                                                      "vocab_size": 32000}))
    r = so.resolve(argv, gpu_mem_gb=80, model=model)
    assert isinstance(r, so.Resolved), r
    from sglang.srt.arg_groups.model_override_base import model_config_of

    mc = model_config_of(r.record)
    found = config_settings(r.record)
    assert (found["hidden_size"], found["vocab_size"]) == (mc.hidden_size, mc.vocab_size)


@pytest.mark.parametrize(("value", "said"), [
    ("{bad", "not JSON"), ("[1]", "expected a JSON object"), ('"text"', "expected a JSON"),
])
def test_bad_override_json_is_one_error_line(value: str, said: str) -> None:
    """Text SGLang's json.loads refuses, or a truthy non-object its get_config crashes on:
    one `error:` line, exit 2; SGLang refuses the same lines."""
    model = t.dirs()["llama"]
    assert isinstance(so.resolve(("--json-model-override-args", value), model=model),
                      so.Rejected)
    code, _, text = run_cli(["plan", "--json", "--", "python", "-m", "sglang.launch_server",
                             "--model-path", model, "--json-model-override-args", value])
    errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1 and said in errors[0], text
    assert len(errors[0]) <= 200 and "Traceback" not in text


@pytest.mark.parametrize("value", ["null", "[]", "0", "false", "{}"])
def test_falsy_override_json_is_no_override(value: str) -> None:
    """A falsy JSON value is no override (`if model_override_args:`): SGLang starts, and
    graphfit reads the config as written."""
    model = t.dirs()["llama"]
    argv = (*t.line({}, 1)[:-1], value)
    assert isinstance(so.resolve(argv, model=model), so.Resolved)
    assert t.facts_verdict(argv, model, "H100") == "agree"


@pytest.mark.parametrize("overrides", [
    {"rope_scaling": {"factor": 1.0}}, {"rope_scaling": {"mrope_section": None}},
    {"rope_scaling": None}])
def test_rope_scaling_merges_as_in_sglang(tmp_path: Path, overrides: dict[str, Any]) -> None:
    """A `rope_scaling` dict merges into the written one (hf_transformers/config.py:415-422):
    an M-RoPE section the override does not name is kept, as SGLang's hf_config keeps it."""
    from sglang.srt.arg_groups.model_override_base import model_config_of

    written = json.loads((Path(t.dirs()["llama"]) / "config.json").read_text())
    written["rope_scaling"] = {"rope_type": "default", "mrope_section": [16, 24, 24]}
    (tmp_path / "config.json").write_text(json.dumps(written))
    value = json.dumps(overrides)
    r = so.resolve(("--json-model-override-args", value), model=str(tmp_path))
    assert isinstance(r, so.Resolved), r
    hf = model_config_of(r.record).hf_config
    rope = getattr(hf, "rope_scaling", None) or {}
    with target_overrides.applied(tmp_path / "config.json", value):
        mrope = model_config.read_model(tmp_path / "config.json").mrope
    # SGLang's test is the key's presence (layers/rotary_embedding/factory.py:242)
    assert mrope == ("mrope_section" in rope), rope


AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}


@pytest.mark.parametrize(("overrides", "flags"), [
    ({"quantization_config": {"quant_method": "fp8"}}, ("--quantization", "awq")),
    ({"quantization_config": AWQ}, ("--quantization", "fp8")),
    ({"quantization_config": {"quant_method": "fp8"}}, ()),
    ({"quantization_config": {"quant_method": "bogus"}}, ()),
    ({"quantization_config": {"quant_method": "fp8"}}, ("--quantization", "fp8")),
])
def test_an_overridden_quantization_config_is_verified_as_in_sglang(
        overrides: dict[str, Any], flags: tuple[str, ...]) -> None:
    """`_verify_quantization` reads the overridden hf_config's quantization_config
    (configs/model_config.py:1727-1741, 2056-2155), and the model loader builds its config
    class from it: graphfit accepts and refuses the same lines
    (graphfit.inputs.model_config.quant_settings on the overridden config)."""
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError

    model = t.dirs()["llama"]
    argv = ("--json-model-override-args", json.dumps(overrides), *flags)
    sglang_starts = isinstance(so.resolve(argv, model=model), so.Resolved)
    if sglang_starts:  # the model loader reads the overridden config too (s47q: Fp8Config's
        # activation_scheme, layers/quantization/fp8.py:346-350)
        from tests.oracle import sglang_quant_capability_oracle as co

        flag = flags[1] if flags else None
        loaded = co.load(flag, overrides["quantization_config"], 90, model_dir=model)
        sglang_starts = loaded.stage not in ("before", "capability")
    try:
        build_config({}, environ={}, pasted=[
            "python", "-m", "sglang.launch_server", "--model-path", model, *argv])
        graphfit_plans = True
    except GraphfitError:
        graphfit_plans = False
    assert sglang_starts == graphfit_plans


@pytest.mark.parametrize("overrides", [
    {"linear_num_value_heads": 64}, {"linear_value_head_dim": 256, "linear_conv_kernel_dim": 2},
    {"num_hidden_layers": 8}, {"full_attention_interval": 2}, {"mamba_ssm_dtype": "float16"},
])
def test_an_overridden_mamba_state_sizes_the_cache_as_in_sglang(
        monkeypatch: pytest.MonkeyPatch, overrides: dict[str, Any]) -> None:
    """A Qwen3-Next model whose state shape, layer map or SSM dtype the override args move:
    the state cache SGLang sizes from memory on its overridden config
    (tests/oracle/test_sglang_mamba_memory_oracle.agree: cache size, static fraction, request
    pool) equals graphfit's, whose mamba readers see the same config."""
    from tests.oracle import test_sglang_mamba_memory_oracle as tm

    written = tm.argv_of
    monkeypatch.setattr(tm, "argv_of", lambda p: (
        *written(p), "--json-model-override-args", json.dumps(overrides)))
    p = tm._line(S=None, radix_off=True)  # sized from memory
    assert tm.agree(p) is True


UNIFIED = ("--max-running-requests", "48", "--cuda-graph-backend-prefill", "breakable",
           "--enable-unified-memory")


@pytest.mark.parametrize(("name", "overrides"), [
    ("llama", {"is_hybrid_swa": True}), ("llama", {"architectures": ["Gemma4ForCausalLM"]}),
    ("swa_optin", {"is_hybrid_swa": False}),
    ("beam_full", {"layer_types": ["sliding_attention"] * 32}),
    ("beam_swa", {"layer_types": ["full_attention"] * 32}),
])
def test_an_overridden_hybrid_swa_fact_decides_unified_memory_as_in_sglang(
        name: str, overrides: dict[str, Any]) -> None:
    """Under --enable-unified-memory post-capture KV sizing depends on `is_hybrid_swa_model`
    of the overridden config (arg_groups/overrides.py:1826-1836, configs/model_config.py:
    2651-2697): SGLang's static fraction (its memory hook, tests/oracle/
    sglang_post_capture_oracle) equals graphfit's on the pasted line, and SGLang's planned
    answer is the opposite of the same line without the override args."""
    from tests.oracle import sglang_post_capture_oracle as pc

    argv = (*UNIFIED, "--json-model-override-args", json.dumps(overrides))
    sg = pc.sglang_fraction(argv, 80, name, "1")
    plain = pc.sglang_fraction(UNIFIED, 80, name, "1")
    assert sg is not None and plain is not None
    assert sg[1] != plain[1]  # the override decides it
    ours = pc.graphfit_fraction(pc.graphfit_line(argv, name, "1"), 80)
    assert pc.disagreement(sg[0], ours) is None, (sg, ours)


def test_a_bad_overridden_value_names_the_override_args() -> None:
    """A value the override args set that graphfit cannot size buffers with is one error
    line naming the flag beside the file (the file alone holds a good value)."""
    model = t.dirs()["llama"]
    code, _, text = run_cli(["plan", "--json", "--", "python", "-m", "sglang.launch_server",
                             "--model-path", model, "--json-model-override-args",
                             '{"vocab_size": -1}'])
    errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1, text
    assert "--json-model-override-args" in errors[0] and "vocab_size" in errors[0], errors
    assert len(errors[0]) <= 200


def test_a_config_files_override_args_apply_to_its_model(tmp_path: Path) -> None:
    """A graphfit config file naming `model_path` and `json_model_override_args` (SGLang's
    keys): the model's config.json is read with them applied, as SGLang's ModelConfig holds
    it (before: the key was ignored as unknown)."""
    so.oracle()
    from sglang.srt.arg_groups.model_override_base import model_config_of

    from graphfit.cli.options import resolve_values

    model = t.dirs()["llama"]
    value = json.dumps({"hidden_size": 2048, "architectures": ["Olmo2ForCausalLM"]})
    r = so.resolve(("--json-model-override-args", value), model=model)
    assert isinstance(r, so.Resolved), r
    mc = model_config_of(r.record)
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps({"engine": "sglang", "model_path": model,
                                "json_model_override_args": value}))
    got = resolve_values({"config_file": str(path)}, environ={}).values
    assert (got["hidden_size"], got["architecture"]) == (
        mc.hidden_size, mc.hf_config.architectures[0])


def test_the_override_args_are_not_called_ignored() -> None:
    """graphfit applies the flag (the hidden size the plan reads is the overridden one), so
    no note may list it among the flags "not modelled, ignored"."""
    model = t.dirs()["llama"]
    code, _, text = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                             "--model-path", model, "--json-model-override-args",
                             '{"hidden_size": 2048}'])
    assert code == 0, text
    assert "hidden 2048" in text, text
    assert not [ln for ln in text.splitlines()
                if "ignored" in ln and "--json-model-override-args" in ln], text


@pytest.mark.parametrize("seed", range(10))
def test_other_sub_configs_merge_and_plain_dicts_are_replaced(seed: int) -> None:
    """A dict override on a class's other sub-config (Qwen-Omni's thinker, Bailing-MM's
    llm_config, DeepSeek-VL2's language_config, ...) is merged key by key, on a plain dict
    key (quantization_config) replaced whole: graphfit's loader equals SGLang's get_config
    (utils/hf_transformers/config.py:411-424)."""
    config, overrides, key = t.sub_case(random.Random(3000 + seed))
    assert t.sub_verdict(config, overrides, key) == "agree", (config, overrides)
