"""graphfit == SGLang 0.5.23 on the loader's quantization config file search where s45q's
oracle did not look (tests.oracle.sglang_quant_file_search_compare; restated by
graphfit.inputs.sglang_quant_config_file):

* modelopt_mixed's fall-through (model_loader/weight_utils.py:288-298): a config.json
  mixed-precision config without quantized_layers or a KV-cache key sends the loader to the
  directory's hf_quant_config.json;
* a model named by a `--config` file's `model_path` (or graphfit's `--model-path`) with the
  file's `quantization`;
* the config classes the loader builds from config.json's own config (ModelOptFp8Config,
  ModelOptFp4Config, Fp8Config `from_config`).

Judged: where SGLang's loader cannot find the file or finds several, graphfit refuses citing
the same lines; elsewhere it does not cite them. Larger counts:
`python -m tests.oracle.measure_sglang_quant_file_search 400 47` ."""

from __future__ import annotations

import itertools

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_quant_classes as qc  # noqa: E402
from graphfit.inputs import sglang_quant_config_file as qf  # noqa: E402
from tests.oracle import sglang_quant_file_search_compare as fs  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402
from tests.oracle.sglang_quant_capability_compare import planned  # noqa: E402


def test_mixed_fall_through_agrees() -> None:
    """A sub-grid of the fall-through lines (flags, shapes, layers, keys, files) on an H100."""
    verdicts = agreed(((*line, "H100", 90) for line in itertools.product(
        (None, "modelopt_mixed"), ("flat", "nested"), ("nvfp4", "fp8"),
        ("bare", "kv_algo"), ("none", "hf_mixed", "two"))), fs.compare_mixed)
    # not vacuous: SGLang refuses both ways, and builds from config.json elsewhere
    assert verdicts.count("cannot") >= 3 and verdicts.count("several") >= 3, verdicts
    assert verdicts.count("other") >= 15


def test_config_file_model_agrees() -> None:
    """s45q's directories read from a config file: `model_path` in the file, or graphfit's
    own `--model-path` beside a file holding only `quantization`."""
    chosen = [(f, d) for f, d in fs.file_lines()
              if f in ("modelopt_fp8", "awq", "modelopt_mixed", "fp8")]
    verdicts = agreed(((flag, files, index % 2 == 1)
                       for index, (flag, files) in enumerate(chosen)),
                      lambda flag, files, own: fs.compare_file(flag, files, own_flag=own))
    assert verdicts.count("cannot") >= 4 and verdicts.count("several") >= 1, verdicts


def test_config_classes_agree() -> None:
    """Each flag on each config.json config: where the class SGLang's loader builds
    (ModelOptFp8Config, ModelOptFp4Config, Fp8Config) refuses what it reads, graphfit
    refuses citing it; where the loader builds it, graphfit does not."""
    verdicts = agreed(fs.class_lines(), fs.compare_class)
    assert verdicts.count("class") >= 15 and verdicts.count("built") >= 40, verdicts
    assert "unchecked" in verdicts  # the override-dependent line is said, not judged


@pytest.mark.parametrize("plant", ["fp8_class_check", "fp4_class_check", "fp8_config_check"])
def test_a_planted_class_error_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each config class's check switched off: some line differs from SGLang."""
    monkeypatch.setattr(qc, plant, lambda method, spec: None)
    assert any(fs.compare_class(flag, layout)[1] for flag, layout in fs.class_lines())


def test_hub_id_is_said_not_checked() -> None:
    """A hub id: nothing is downloaded, so the line plans and a note says what SGLang needs."""
    from tests.oracle import sglang_compare as sc

    code, _, output = sc.pasted_plan(("python", "-m", "sglang.launch_server", "--model-path",
                                      "nvidia/Some-Model-FP8", "--quantization",
                                      "modelopt_fp8"), "H100")
    assert code == 0, output[-400:]
    assert "config file search on nvidia/Some-Model-FP8 is not checked" in output
    assert qf.unchecked_note("fp8", "nvidia/Some-Model-FP8") == []  # fp8 reads no file
    assert qf.unchecked_note("awq", "/no/such/dir") == []  # a path, not a hub id


def test_a_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fall-through forgotten: graphfit plans a nested modelopt_mixed config.json
    without a hf_quant_config.json, which SGLang's loader cannot find."""
    monkeypatch.setattr(qf, "mixed_incomplete", lambda method, spec: False)
    verdict, bad = fs.compare_mixed(None, "nested", "nvfp4", "kv_algo", "none", "H100", 90)
    assert verdict == "cannot" and bad is not None
    # graphfit no longer names the fall-through (it may refuse on the class instead)
    _, said = planned(fs.mixed_dir("nested", "nvfp4", "kv_algo", "none"), (), "H100")
    assert "weight_utils.py:288-298" not in said


def test_hf_quant_config_file_agrees() -> None:
    """Every flag on every hf_quant_config.json body, on both architectures: the loader's
    ModelOpt branch on the one file it found
    (weight_utils.py:396-438): no quant_algo is an invalid quant_config except on the Eagle3
    Llama; the FP8 / FP4 classes built from the file refuse what they cannot read."""
    verdicts = agreed(fs.hf_lines(), fs.compare_hf)
    assert verdicts.count("invalid") >= 8 and verdicts.count("class") >= 20, verdicts
    assert verdicts.count("built") >= 80, verdicts


def test_hf_planted_errors_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The file's class check switched off, then the Eagle3 exemption forgotten: each makes
    a line differ from SGLang."""
    with monkeypatch.context() as patch:
        patch.setattr(qf, "file_class_check", lambda *args, **kwargs: None)
        assert fs.compare_hf("modelopt", "no_algo", "LlamaForCausalLM")[1] is not None
        assert fs.compare_hf("modelopt", "int4", "LlamaForCausalLM")[1] is not None
    monkeypatch.setattr(qf, "EAGLE3_LLAMA", "NoSuchArchitecture")
    assert fs.compare_hf("modelopt", "no_algo", "LlamaForCausalLMEagle3")[1] is not None
