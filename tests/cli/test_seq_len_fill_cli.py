"""The seq_lens fill inputs of a pasted SGLang line (graphfit.inputs.sglang_runner_backends):
the draft's `index_kpool` (`kpool_settings`: a value a DSA model's backend cannot use is one
error line, exit 2; another architecture's value is never read by SGLang, dsa_backend.py:533
being the only reader, so it is ignored) and the note when SGLang's default backend is not
restated on ROCm. The fills are compared with SGLang's runners in
tests/oracle/test_sglang_seq_len_fill_oracle.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli

LLAMA = ROOT / "examples" / "models" / "Llama-3.1-8B-Instruct"
EAGLE = ["--max-running-requests", "8", "--speculative-algorithm", "EAGLE",
         "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
         "--speculative-num-draft-tokens", "4"]


def _model(tmp_path: Path, arch: str, kpool: object) -> Path:
    data = json.loads((LLAMA / "config.json").read_text())
    data.update({"architectures": [arch], "index_kpool": kpool})
    model = tmp_path / arch
    model.mkdir()
    (model / "config.json").write_text(json.dumps(data))
    return model


@pytest.mark.parametrize("kpool", [0, -2, "4", 2.0, True])
def test_a_dsa_models_unusable_kpool_is_one_error_line(tmp_path: Path, kpool: object) -> None:
    model = _model(tmp_path, "DeepseekV32ForCausalLM", kpool)
    code, out, err = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                              "--model-path", str(model), *EAGLE])
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert lines[0].startswith("error: ") and "index_kpool" in lines[0] and len(lines[0]) <= 200


def test_another_architectures_kpool_is_ignored(tmp_path: Path) -> None:
    model = _model(tmp_path, "LlamaForCausalLM", "not a number")
    code, out, err = run_cli(["plan", "--json", "--", "python", "-m", "sglang.launch_server",
                              "--model-path", str(model), *EAGLE,
                              "--speculative-draft-model-path", str(model)])
    assert code == 0, err
    assert json.loads(out)["config"]["options"]["dsa_index_kpool"] == 1


@pytest.mark.parametrize(("gpu", "noted"), [("MI300X", True), ("H100", False)])
def test_an_unrestated_default_on_rocm_is_noted(gpu: str, noted: bool) -> None:
    """No local config.json: SGLang's default backend is not restated. On ROCm it may be aiter
    (fill = draft tokens), so the 1 graphfit plans is noted; on CUDA every backend fills 1."""
    code, _, err = run_cli(["plan", "--gpu-memory-gb", gpu, "--", "python", "-m",
                              "sglang.launch_server", "--model-path", "org/model", *EAGLE,
                              "--speculative-draft-model-path", "org/draft"])
    assert code == 0, err
    assert ("seq_lens fills: SGLang's default attention backend on ROCm" in err) == noted


@pytest.mark.parametrize(("arch", "noted"), [("LlamaForCausalLM", False),
                                             ("DeepseekV3ForCausalLM", True)])
def test_rocm_default_from_graphfits_architecture(arch: str, noted: bool) -> None:
    """No local config.json, but graphfit's --architecture: an MHA class with no model
    override gets SGLang's ROCm default (aiter: every runner pads with the 4 draft tokens);
    an MLA class (its KV heads decide) keeps fill 1 and the note."""
    code, out, err = run_cli(["plan", "--json", "--gpu-memory-gb", "MI300X", "--architecture",
                              arch, "--", "python", "-m", "sglang.launch_server",
                              "--model-path", "org/model", *EAGLE])
    assert code == 0, err
    assert ("seq_lens fills: SGLang's default attention backend on ROCm" in err) == noted
    options = json.loads(out)["config"]["options"]
    assert (options["decode_attention_backend"] == "aiter") == (not noted)
