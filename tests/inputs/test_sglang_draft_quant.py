"""graphfit.inputs.sglang_draft_quant on pasted lines: a refusal is one `error:` line and
exit 2; a draft whose checkpoint carries quantization metadata, a hub-id draft or a flag that
is not restated are planned as before; the method reaches the options for the planner's
checks. SGLang's own answers are compared in tests/oracle/test_sglang_draft_quant_oracle.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import LLAMA, eagle_dirs, run_cli


def _plan(target: str, draft: str, *extra: str, gpu: str = "H100") -> tuple[int, str, str]:
    return run_cli(["plan", "--json", "--gpu-memory-gb", gpu, "--", "python", "-m",
                    "sglang.launch_server", "--model-path", target,
                    "--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
                    draft, *extra])


def _one_error(code: int, text: str) -> str:
    assert code == 2, text
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and len(errors[0]) <= 207 and "Traceback" not in text, text
    return errors[0]


@pytest.mark.parametrize(("flag", "words"), [
    ("gptq", "Unknown quantization method: gptq"),
    ("awq", "Cannot find the config file for awq"),
    ("quark", "Either quant_config or online_scheme"),
])
def test_refusals_are_one_error_line(tmp_path: Path, flag: str, words: str) -> None:
    target, draft = eagle_dirs(tmp_path)
    code, _, text = _plan(target, draft, "--speculative-draft-model-quantization", flag)
    assert words in _one_error(code, text)


def test_the_planner_checks_the_gpu(tmp_path: Path) -> None:
    target, draft = eagle_dirs(tmp_path)
    line = ("--speculative-draft-model-quantization", "mxfp8")
    assert "compute capability 100" in _one_error(*_plan(target, draft, *line)[::2])
    code, out, text = _plan(target, draft, *line, gpu="B200")
    assert code == 0, text
    assert json.loads(out)["config"]["options"]["draft_quantization"] == "mxfp8"


def test_unquant_and_no_flag_set_nothing(tmp_path: Path) -> None:
    target, draft = eagle_dirs(tmp_path)
    for extra in ((), ("--quantization", "fp8", "--speculative-draft-model-quantization",
                       "unquant")):
        code, out, text = _plan(target, draft, *extra)
        assert code == 0, text
        assert json.loads(out)["config"]["options"].get("draft_quantization") is None


def test_a_quantized_draft_reaches_the_planner(tmp_path: Path) -> None:
    """A draft with its own quantization_config (issue 23 s50r): the loader's class check on
    the method the draft takes (one error line), else the config and the flag reach the
    options for the planner's checks."""
    flag = ("--speculative-draft-model-quantization", "awq")
    target, draft = eagle_dirs(tmp_path, quantization_config={"quant_method": "fp8"})
    assert "activation_scheme" in _one_error(*_plan(target, draft, *flag)[::2])
    full = {"quant_method": "fp8", "activation_scheme": "dynamic"}
    (tmp_path / "full").mkdir()
    target, draft = eagle_dirs(tmp_path / "full", quantization_config=full)
    code, out, text = _plan(target, draft, *flag)
    assert code == 0, text
    options = json.loads(out)["config"]["options"]
    assert options["draft_quantization"] == "awq"
    assert json.loads(options["draft_quant_config"]) == {"quant_method": "fp8"}
    code, _, text = _plan(target, draft, *flag, gpu="T4")  # fp8 needs SM80 (the draft's)
    assert "compute capability 80" in _one_error(code, text)


def test_not_restated_drafts_are_planned(tmp_path: Path) -> None:
    """A quantization file beside an unquantized config (one the draft's ModelConfig does
    not read), a hub-id draft: nothing is checked."""
    flag = ("--speculative-draft-model-quantization", "awq")
    target, draft = eagle_dirs(tmp_path)
    (Path(draft) / "config.json").write_text(json.dumps(
        {"architectures": ["LlamaForCausalLMEagle"], **LLAMA}))
    (Path(draft) / "quant_config.json").write_text("{}")
    assert _plan(target, draft, *flag)[0] == 0
    assert _plan(target, "org/some-eagle-draft", *flag)[0] == 0
