"""SGLang's default attention backend on ROCm restated from graphfit's `--architecture` when
the line's model has no local config.json (graphfit.planner.engines.sglang_rocm_default):
each EAGLE runner's seq_lens fill equals the one SGLang's runners hold after resolving the
real config.json under its ROCm platform override; a class the name alone does not decide
keeps fill 1 with the note (tests/oracle/sglang_rocm_class_default.py)."""

from __future__ import annotations

import tempfile
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_rocm_class_default as rc  # noqa: E402

# a few classes of each kind: plain MHA (restated: aiter, fill = draft tokens), an override
# restated by class (Olmo2: triton), MLA and a model override read from config (not restated)
CLASSES = ("LlamaForCausalLM", "Qwen3ForCausalLM", "olmo2", "sinks", "mla", "Lfm2ForCausalLM")


@pytest.fixture(scope="module")
def dirs() -> Any:
    so.oracle()
    with tempfile.TemporaryDirectory() as root:
        yield rc.model_dirs(root)


@pytest.mark.parametrize("name", CLASSES)
def test_rocm_default_by_class_is_sglangs(dirs: dict[str, str], name: str) -> None:
    verdicts = [rc.verdict(line, dirs[name]) for line in rc.LINES[:3:2]]
    assert all(v in ("agree", "noted") for v in verdicts), verdicts
    from graphfit.planner.engines.sglang_rocm_default import UNKNOWN_BY_CLASS

    restated = rc.architecture(dirs[name]) not in UNKNOWN_BY_CLASS
    assert (verdicts[0] == "agree") == restated
    if name in ("LlamaForCausalLM", "Qwen3ForCausalLM"):  # non-vacuous: SGLang's aiter fill
        assert rc.fills_equal(rc.LINES[0], dirs[name], before=True) is False


@pytest.mark.parametrize(("name", "plant"), [("LlamaForCausalLM", "triton"),
                                              ("olmo2", "generic")])
def test_planted_errors_are_caught(dirs: dict[str, str], name: str, plant: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: ROCm's MHA default read as triton (fill 1 where SGLang's aiter pads with the
    draft tokens); Olmo2's override skipped (SGLang's triton, graphfit's generic aiter).
    Each comparison must then differ."""
    from graphfit.inputs import sglang_draft_default as dd
    from graphfit.planner.engines import sglang_attn_default as ad

    assert rc.verdict(rc.LINES[0], dirs[name]) == "agree"
    wrong = ((lambda inp: ad.DefaultBackend("triton", "planted")) if plant == "triton"
             else ad.generic_default)
    monkeypatch.setattr(dd, "default_attention_backend", wrong)
    assert rc.verdict(rc.LINES[0], dirs[name]).startswith("differ")


def test_page_tree_under_the_class_default_refused_by_both(dirs: dict[str, str]) -> None:
    """SGLang's checks of the backend it resolved run on the class path too: topk 2 with page
    size 16 on ROCm's aiter default is SGLang's refusal (speculative_hook.py:1267-1282), and
    graphfit's, from `--architecture` alone."""
    from graphfit.planner.core.errors import ConfigError

    line = (*rc.LINES[1], "--page-size", "16")
    assert rc.verdict(line, dirs["LlamaForCausalLM"]).startswith("refused")
    with pytest.raises(ConfigError, match="aiter"):
        rc._plan(line, "LlamaForCausalLM", before=False)
