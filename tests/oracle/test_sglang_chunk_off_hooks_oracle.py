"""graphfit == SGLang 0.5.23 where a model hook turns chunked prefill off (issue 23, s69a;
arg_groups/model_hook.py:768-781, 848-887, 1024-1032; graphfit.inputs.sglang_chunk_off_model,
graphfit.planner.engines.sglang_server_chunk.hook_chunk_off): the chunk `check_server_args`
reads is -1 there, so neither the page check nor PD multiplexing's chunk assert refuses, and
where the hook's condition fails (HRM-Text without `prefix_lm`, a causal gemma3_text, LLaVA
served `language_model_only`) the given chunk is judged as on any model. Fixed lines on every
target, a small drawn grid, and plants."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_chunk_off_model  # noqa: E402
from graphfit.planner.engines import sglang_server_chunk  # noqa: E402
from tests.oracle import sglang_chunk_off_hooks_oracle as hooks  # noqa: E402
from tests.oracle import sglang_lora_runner_oracle as lro  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402

OFF = ("hrm", "egemma2", "egemma", "llava", "mllama", "clip")  # the hook fires
KEPT = ("hrm_causal", "gemma3", "llava_lm", "dense")  # the given chunk is judged


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return hooks.targets(tmp_path_factory.mktemp("chunk-off-hooks"))


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    """Both lines on every target; SGLang starts them on the hooks' models and refuses them
    on the others (not vacuous)."""
    wrong = []
    for name in (*OFF, *KEPT):
        for argv in (hooks.PAGE, hooks.PDMUX):
            theirs, _ = lro.sglang(targets[name], argv, {})
            said, line = sao.compare(targets[name], argv, {})
            if said != "agree" or (theirs is None) != (name in OFF):
                wrong.append(f"{said}: {name} {line}")
    assert not wrong, "\n".join(wrong)


@settings(max_examples=8, deadline=None)
@given(st.randoms(use_true_random=False))
def test_drawn_lines_agree(targets: dict[str, Path], rng: random.Random) -> None:
    name, argv = hooks.draw(rng)
    said, line = sao.compare(targets[name], argv, {})
    assert said == "agree", f"{name} {line}"


@pytest.mark.parametrize(("target", "attr", "value", "name"), [
    # the hook's condition unread: the given chunk judged on EmbeddingGemma2
    (sglang_server_chunk, "hook_chunk_off", lambda config: False, "egemma2"),
    # prefix_lm ignored: HRM-Text always taken as off
    (sglang_chunk_off_model, "chunk_off", lambda values, data: True, "hrm_causal"),
    # the hooks' value taken as 0: PD multiplexing's assert wants exactly -1
    (sglang_server_chunk, "HOOK_CHUNK", 0, "llava"),
])
def test_plants_are_caught(targets: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                           target: object, attr: str, value: object, name: str) -> None:
    monkeypatch.setattr(target, attr, value)
    said = [sao.compare(targets[name], argv, {})[0] for argv in (hooks.PAGE, hooks.PDMUX)]
    assert "differ" in said, said
