"""graphfit's MiniMax-M3 sparse KV price with `auto` KV on a ModelOpt checkpoint (a flat
config.json `quantization_config`, quant_method "modelopt") against SGLang's own
`_compute_cell_size`, `configure_kv_cache_dtype` reading the ModelOpt class SGLang's loader
builds (tests/oracle/sglang_minimax_kv_oracle; issue 23 s60m).

The classes' readings (graphfit.inputs.sglang_minimax_kv._modelopt_kv): modelopt_fp8
(modelopt_quant.py:466-522), modelopt_fp4 (:1595-1640) and modelopt_mixed (:850-878), each
picked as ModelConfig parses the dict (configs/model_config.py:1838-1869), with no
--quantization, one naming it or another ModelOpt one (base_config.py:223-254).
The nested hf_quant_config.json form (no config.json config, `NESTED`; issue 23 s62m): the
loader reads the file per class (model_loader/weight_utils.py:343-437), its
`quantization.kv_cache_quant_algo` only.
`python -m tests.oracle.measure_sglang_minimax_modelopt_kv` draws more lines.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import test_sglang_minimax_kv_oracle as t  # noqa: E402
from tests.oracle.test_sglang_minimax_kv_quant_oracle import quantized  # noqa: E402

MO = {"quant_method": "modelopt"}
NVFP4_LAYERS = {"model.layers.0.mlp": {"quant_algo": "NVFP4"}}
FP8_SCHEME = {"type": "float", "num_bits": 8}
W4A8_LAYERS = {"model.layers.0.mlp": {"quant_algo": "W4A8_AWQ"}}  # no NVFP4 layer: w4afp8
CONFIGS: dict[str, dict[str, Any]] = {
    "fp8-algo": {**MO, "quant_algo": "FP8", "kv_cache_quant_algo": "fp8"},
    "fp8-scheme4-over-algo": {**MO, "quant_algo": "FP8", "kv_cache_quant_algo": "FP8",
                              "kv_cache_scheme": {"type": "float", "num_bits": 4}},
    "nvfp4-scheme-string": {**MO, "quant_algo": "NVFP4", "kv_cache_scheme": " float8 "},
    "nvfp4-nvfp4-string": {**MO, "quant_algo": "NVFP4", "kv_cache_scheme": "nvfp4",
                           "kv_cache_quant_algo": "FP8"},
    "mixed-scheme": {**MO, "quant_algo": "MIXED_PRECISION", "kv_cache_scheme": FP8_SCHEME,
                     "quantized_layers": NVFP4_LAYERS},
}
CASES = {
    "fp8-algo-H100": quantized(t.case([0, 1]), CONFIGS["fp8-algo"]),
    "fp8-flag-B200": quantized(t.case([0, 1], gpu="B200",
                                      more=("--quantization", "modelopt_fp8")),
                               CONFIGS["fp8-algo"]),
    "fp8-scheme4-H100": quantized(t.case([0, 1]), CONFIGS["fp8-scheme4-over-algo"]),
    "nvfp4-string-B200": quantized(t.case([0, 1, 1], [0, 0, 1], gpu="B200"),
                                   CONFIGS["nvfp4-scheme-string"]),
    "nvfp4-nvfp4-H100": quantized(t.case([0, 1]), CONFIGS["nvfp4-nvfp4-string"]),
    "mixed-H100-tp2": quantized(t.case([0, 1, 1], tp=(2, 1)), CONFIGS["mixed-scheme"]),
    # another ModelOpt flag: the checkpoint's class all the same (base_config.py:223-254);
    # the FP8 class reads no scheme string, the FP4 class does
    "fp8-ckpt-fp4-flag": quantized(t.case([0, 1], more=("--quantization", "modelopt_fp4")),
                                   {**MO, "quant_algo": "FP8", "kv_cache_scheme": "FP8"}),
    "nvfp4-ckpt-fp8-flag": quantized(t.case([0, 1], more=("--quantization", "modelopt_fp8")),
                                     {**MO, "quant_algo": "NVFP4", "kv_cache_scheme": "FP8"}),
    # issue 23 s61m: a mixed checkpoint under another ModelOpt flag is still modelopt_mixed
    # (modelopt_quant.py:830-835); MXFP8 parses to mxfp8 (model_config.py:1870-1895), its
    # KV from kv_cache_quant_algo, else an 8-bit float scheme dict
    "mixed-ckpt-fp4-flag": quantized(t.case([0, 1], more=("--quantization", "modelopt_fp4")),
                                     CONFIGS["mixed-scheme"]),
    "mixed-ckpt-fp8-flag": quantized(t.case([0, 1], more=("--quantization", "modelopt_fp8")),
                                     {**CONFIGS["mixed-scheme"], "kv_cache_scheme": None,
                                      "kv_cache_quant_algo": "fp8"}),
    "mxfp8-scheme": quantized(t.case([0, 1], gpu="B200"), {**MO, "quant_algo": "MXFP8",
                                               "kv_cache_scheme": FP8_SCHEME}),
    "mxfp8-algo-over-scheme": quantized(t.case([0, 1], gpu="B200",
                                               more=("--quantization", "mxfp8")),
                                        {**MO, "quant_algo": "MXFP8", "kv_cache_scheme":
                                         FP8_SCHEME, "kv_cache_quant_algo": "NVFP4"}),
    # MIXED_PRECISION without NVFP4 layers parses to w4afp8, whose class keeps no KV algo
    "w4afp8-fp8-algo": quantized(t.case([0, 1]), {**MO, "quant_algo": "MIXED_PRECISION",
                                                  "kv_cache_quant_algo": "FP8",
                                                  "quantized_layers": W4A8_LAYERS}),
    "fp8-ckpt-fp8-flag": quantized(t.case([0, 1], more=("--quantization", "fp8")),
                                   {**MO, "quant_algo": "FP8", "kv_cache_scheme": FP8_SCHEME}),
}




def nested(c: dict[str, Any], section: dict[str, Any], producer: bool = True
           ) -> dict[str, Any]:
    """The case with no config.json config and `section` as its directory's nested
    hf_quant_config.json `quantization` (issue 23 s62m)."""
    head = {"producer": {"name": "modelopt", "version": "0.29.0"}} if producer else {}
    return {**c, "hf_quant": {**head, "quantization": section}}


# issue 23 s62m: the loader reads the nested file's `quantization.kv_cache_quant_algo` per class
# (weight_utils.py:343-437; modelopt_quant.py:494-500, 1657-1664, 874-879), no scheme dict;
# mxfp8 / w4afp8 classes read no file (model dtype)
NESTED = {
    "nested-fp8-H100": nested(t.case([0, 1]), {"quant_algo": "FP8",
                                               "kv_cache_quant_algo": "FP8"}),
    "nested-fp8-scheme-unread": nested(t.case([0, 1]), {"quant_algo": "FP8",
                                                        "kv_cache_scheme": FP8_SCHEME}),
    "nested-nvfp4-B200": nested(t.case([0, 1, 1], [0, 0, 1], gpu="B200"),
                                {"quant_algo": "NVFP4", "kv_cache_quant_algo": "fp8",
                                 "group_size": 16}),
    "nested-mixed-fp8-flag-tp2": nested(t.case([0, 1, 1], tp=(2, 1), more=(
        "--quantization", "modelopt_fp8")), {"quant_algo": "MIXED_PRECISION",
                                             "kv_cache_quant_algo": "FP8",
                                             "quantized_layers": NVFP4_LAYERS}),
    "nested-mxfp8-B200": nested(t.case([0, 1], gpu="B200"), {"quant_algo": "MXFP8",
                                                            "kv_cache_quant_algo": "FP8"}),
    "nested-w4afp8": nested(t.case([0, 1]), {"quant_algo": "MIXED_PRECISION",
                                             "kv_cache_quant_algo": "FP8",
                                             "quantized_layers": W4A8_LAYERS}),
    "nested-fp8-no-producer-fp8-flag": nested(t.case([0, 1], more=("--quantization", "fp8")),
                                              {"quant_algo": "FP8",
                                               "kv_cache_quant_algo": "FP8"}, producer=False),
    # a flat modelopt_mixed config lacking both KV keys: the loader reads the file instead
    # (weight_utils.py:283-298)
    "flat-mixed-incomplete-nested-file": nested(
        quantized(t.case([0, 1]), {**MO, "quant_algo": "MIXED_PRECISION",
                                   "quantized_layers": NVFP4_LAYERS}),
        {"quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": "FP8",
         "quantized_layers": NVFP4_LAYERS}),
    # ... with a ModelOpt producer, an FP8 section builds the FP8 class (weight_utils.py:426-429)
    "flat-mixed-incomplete-fp8-file": nested(
        quantized(t.case([0, 1]), {**MO, "quant_algo": "MIXED_PRECISION",
                                   "quantized_layers": NVFP4_LAYERS}),
        {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}),
}
CASES.update(NESTED)


@pytest.mark.parametrize("name", list(CASES))
def test_auto_kv_on_a_modelopt_checkpoint(name: str) -> None:
    outcome, theirs, ours = t.verdict(CASES[name])
    assert outcome == "agree", (theirs, ours)


def test_rule_binds_and_a_plant_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang's own figures: the FP8 reading halves the main price against the
    NVFP4-string one (not vacuous); graphfit with the ModelOpt reading planted as "model
    dtype" differs from SGLang on the FP8 line."""
    fp8, model = t.sglang_prices(CASES["fp8-algo-H100"]), t.sglang_prices(
        CASES["nvfp4-nvfp4-H100"])
    assert not isinstance(fp8, str) and not isinstance(model, str)
    assert fp8[0][0] < model[0][0]
    from graphfit.inputs import sglang_minimax_kv as reader
    from graphfit.planner.engines.sglang_minimax_kv import KV_MODEL

    monkeypatch.setattr(reader, "_modelopt_kv", lambda quant, config, hf_quant=None: KV_MODEL)
    assert t.graphfit_prices(CASES["fp8-algo-H100"]) != fp8


def test_nested_rule_binds_and_plants_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang's own figures: the nested FP8 algo halves the main price against the nested
    scheme dict it does not read (not vacuous); graphfit with the nested reading planted as
    "not read" (the file ignored) or as the scheme-reading flat one differs from SGLang."""
    fp8 = t.sglang_prices(NESTED["nested-fp8-H100"])
    unread = t.sglang_prices(NESTED["nested-fp8-scheme-unread"])
    assert not isinstance(fp8, str) and not isinstance(unread, str)
    assert fp8[0][0] < unread[0][0]
    from graphfit.inputs import sglang_minimax_kv as reader

    monkeypatch.setattr(reader, "hf_quant_file", lambda model: None)
    assert t.graphfit_prices(NESTED["nested-fp8-H100"]) != fp8
    monkeypatch.undo()
    monkeypatch.setattr(reader, "_nested_kv", lambda quant, file: reader._modelopt_kv(
        quant, {**file["quantization"], "quant_method": "modelopt"}))
    assert t.graphfit_prices(NESTED["nested-fp8-scheme-unread"]) != unread


def vl(c: dict[str, Any], config: dict[str, Any], file: dict[str, Any]) -> dict[str, Any]:
    """The case as the VL wrapper with `config` in its text_config only and `file` as its
    hf_quant_config.json (issue 23 s63m)."""
    c = {**c, "nested": True}
    return {**c, "fields": {**c["fields"], "quantization_config": config}, "hf_quant": file}


PRODUCER = {"producer": {"name": "modelopt"}}
# issue 23 s63m: ModelConfig parses the class from the file (no top-level config,
# model_config.py:1727-1745, 1814-1822) while the loader hands it the text_config's dict
# (checkpoint_quantization.py:55-73), read flat; a flat file is read flat by the class
# (weight_utils.py:251-265), a doubly nested one leaves mxfp8 / w4afp8 at the model dtype
FORMS = {
    # s62m's one differing line: SGLang 5376 B, graphfit 6656 B before
    "vl-w4a16-A100-hisparse": vl(t.case([0, 1, 0, 1], layers=4, head_dim=64, index_dim=128,
                                        tp=(4, 1), gpu="A100", more=(
        "--attention-backend", "triton", *t.HISPARSE, "--hisparse-config",
        '{"host_to_device_ratio": 4}', "--page-size", "64")),
        {**MO, "quant_algo": "W4A16_NVFP4", "kv_cache_scheme": FP8_SCHEME},
        {"quantization": {"quant_algo": "W4A16_NVFP4", "kv_cache_scheme": FP8_SCHEME,
                          "group_size": 16}}),
    "vl-fp8-algo": vl(t.case([0, 1]), {**MO, "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"},
                      {**PRODUCER, "quantization": {"quant_algo": "FP8"}}),
    # mxfp8's Fp8Config reads the text dict's kv_cache_quant_algo only (fp8.py:346-386)
    "vl-mxfp8-scheme-unread": vl(t.case([0, 1], gpu="B200"), {
        **MO, "quant_algo": "MXFP8", "kv_cache_scheme": FP8_SCHEME,
        "activation_scheme": "dynamic"}, {**PRODUCER, "quantization": {"quant_algo": "MXFP8"}}),
    "vl-mxfp8-algo": vl(t.case([0, 1], gpu="B200"), {
        **MO, "quant_algo": "MXFP8", "kv_cache_quant_algo": "FP8",
        "activation_scheme": "dynamic"}, {**PRODUCER, "quantization": {"quant_algo": "MXFP8"}}),
    "flat-file-fp8-scheme": nested(t.case([0, 1]), {}) | {"hf_quant": {
        **PRODUCER, "quant_algo": "FP8", "kv_cache_scheme": FP8_SCHEME}},
    "flat-file-fp4-string-fp8-flag": nested(t.case([0, 1], more=(
        "--quantization", "modelopt_fp8")), {}) | {"hf_quant": {
            "quant_method": "modelopt", "quant_algo": "NVFP4", "kv_cache_scheme": "FP8"}},
    "flat-file-mixed-no-kv": nested(t.case([0, 1]), {}) | {"hf_quant": {
        **PRODUCER, "quant_algo": "MIXED_PRECISION", "quantized_layers": NVFP4_LAYERS}},
    "flat-file-mxfp8-algo": nested(t.case([0, 1], gpu="B200"), {}) | {"hf_quant": {
        **PRODUCER, "quant_algo": "MXFP8", "kv_cache_quant_algo": "FP8"}},
    "doubly-nested-mxfp8": nested(t.case([0, 1], gpu="B200"), {"quantization": {
        "quant_algo": "MXFP8", "kv_cache_quant_algo": "FP8"}}),
}


@pytest.mark.parametrize("name", list(FORMS))
def test_auto_kv_on_the_other_file_forms(name: str) -> None:
    outcome, theirs, ours = t.verdict(FORMS[name])
    assert outcome == "agree", (theirs, ours)


def test_file_form_rules_bind_and_plants_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang's own figures: the VL line's FP8 text dict and the flat file's FP8 scheme halve
    the price against the model dtype (not vacuous); graphfit with the text_config reading
    planted as "not read", or the flat file read as a nested one (its scheme unread), differs."""
    vl_fp8, flat_fp8 = (t.sglang_prices(FORMS["vl-fp8-algo"]),
                        t.sglang_prices(FORMS["flat-file-fp8-scheme"]))
    model = t.sglang_prices(FORMS["flat-file-mixed-no-kv"])
    assert not any(isinstance(x, str) for x in (vl_fp8, flat_fp8, model))
    assert vl_fp8 == flat_fp8 and flat_fp8[0][0] < model[0][0]  # type: ignore[index]
    from graphfit.inputs import sglang_minimax_kv as reader
    from graphfit.planner.engines.sglang_minimax_kv import KV_UNREAD

    monkeypatch.setattr(reader, "_text_config_kv", lambda quant, config, file: KV_UNREAD)
    assert t.graphfit_prices(FORMS["vl-fp8-algo"]) != vl_fp8
    monkeypatch.undo()
    monkeypatch.setattr(reader, "_flat_file_kv", lambda quant, file: reader._nested_kv(
        quant, {"quantization": file}))
    assert t.graphfit_prices(FORMS["flat-file-fp8-scheme"]) != flat_fp8


SLIM = {"model.layers.0.self_attn.q_proj.weight": "W8A8", "kv_cache_type": "C8"}
FP8_ALGO = {**MO, "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}
# issue 23 s63m: a ModelSlim description wins ModelConfig's config (model_config.py:1824-1836);
# ModelSlimConfig keeps no KV algo (the model dtype); with a config.json config and no flag,
# the MiniMax hook copies its method (minimax_m3.py:40-53) and ModelConfig refuses the clash
SLIM_CASES = {
    "slim-no-config": {**t.case([0, 1]), "modelslim": SLIM},
    "slim-config-modelslim-flag": {**quantized(t.case([0, 1], more=(
        "--quantization", "modelslim")), FP8_ALGO), "modelslim": SLIM},
    "slim-config-no-flag": {**quantized(t.case([0, 1]), FP8_ALGO), "modelslim": SLIM},
    # on SM100 too (the copy does not wait for graphfit's SM100 flag rules)
    "slim-nvfp4-config-no-flag-B200": {**quantized(t.case([0, 1], gpu="B200"), {
        **MO, "quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8"}), "modelslim": SLIM},
    "slim-fp8-config-no-flag": {**quantized(t.case([0, 1]), {
        "quant_method": "fp8", "activation_scheme": "dynamic", "kv_cache_quant_algo": "FP8"}),
        "modelslim": SLIM},
}


@pytest.mark.parametrize("name", list(SLIM_CASES))
def test_modelslim_directory_as_sglang(name: str) -> None:
    outcome, theirs, ours = t.verdict(SLIM_CASES[name])
    if outcome == "sglang refuses":
        assert str(ours).startswith("refused:") and "modelslim" in str(ours), (theirs, ours)
    else:
        assert outcome == "agree", (theirs, ours)


def test_modelslim_copy_rule_binds(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang refuses the copied flag (not vacuous: it prices the same directory under
    `--quantization modelslim`); graphfit with the MiniMax copy planted away prices it."""
    c = SLIM_CASES["slim-config-no-flag"]
    assert isinstance(t.sglang_prices(c), str)
    assert not isinstance(t.sglang_prices(SLIM_CASES["slim-config-modelslim-flag"]), str)
    from graphfit.planner.engines import sglang_quantization

    # issue 23 s64m: resolved_flag carries the copy too (`_minimax_flag`), so both go
    monkeypatch.setattr(sglang_quantization, "_minimax_copy", lambda config: None)
    monkeypatch.setattr(sglang_quantization, "_minimax_flag", lambda config: None)
    assert not str(t.graphfit_prices(c)).startswith("refused")
    b200 = SLIM_CASES["slim-nvfp4-config-no-flag-B200"]
    assert isinstance(t.sglang_prices(b200), str)
    assert not str(t.graphfit_prices(b200)).startswith("refused")


def test_modelslim_clash_is_one_whole_error_line() -> None:
    """issue 23 s64m: the MiniMax copy's clash refusal fits the CLI's 200-character `error:`
    line whole (s63m's reused check_copy wording was elided in its middle), exit 2."""
    from tests.helpers import run_cli

    for name in ("slim-config-no-flag", "slim-nvfp4-config-no-flag-B200",
                 "slim-fp8-config-no-flag"):
        c = SLIM_CASES[name]
        code, out, err = run_cli(["plan", "--gpu-memory-gb", c["gpu"], "--",
                                  *t.pasted_line(c)])
        lines = err.strip().splitlines()
        assert code == 2 and out == "" and len(lines) == 1, (code, out, err)
        line = lines[0]
        assert line.startswith("error: --quantization: MiniMax-M3's hook copies"), line
        assert len(line) <= 200 and " ... " not in line, line
        assert "'modelslim' config" in line and line.endswith("(model_config.py:2106-2148)")
