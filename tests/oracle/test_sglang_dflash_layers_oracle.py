"""graphfit against SGLang 0.5.23's own target-layer resolution for DFLASH / DSPARK targets
(spec_aux_hidden_state.py:199-283, dflash_utils.py:348-385, 545-585; issue 23, s53k):
generated target / draft config pairs through SGLang's `_resolve_dflash_aux_hidden_state`
and graphfit's `sglang_dflash_layers.refusal`, then pasted DFLASH / DSPARK lines whose
target has few layers, judged by SGLang's function on the very configs the line names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs.sglang_dflash_layers import refusal  # noqa: E402
from tests.oracle import sglang_dflash_layers as dl  # noqa: E402
from tests.oracle.sglang_dspark_compare import draft_dir as dspark_dir  # noqa: E402

GRID = [({"num_hidden_layers": t}, {"num_hidden_layers": d, **ids})
        for t in (1, 3, 4) for d in (1, 2)
        for ids in ({}, {"dflash_config": {"target_layer_ids": [0, 3]}})]


@settings(max_examples=60, deadline=None)
@given(target=dl.targets(), draft=dl.drafts())
def test_generated_pairs_are_refused_as_sglang_refuses(target: dict[str, object],
                                                       draft: dict[str, object]) -> None:
    assert refusal(target, draft) == dl.sglang_refusal(target, draft)


def test_the_grid_is_not_vacuous() -> None:
    """Both answers occur on the grid, each of SGLang's three sentences among the refusals."""
    answers = [dl.sglang_refusal(t, d) for t, d in GRID]
    assert [refusal(t, d) for t, d in GRID] == answers
    assert None in answers
    said = " ".join(a for a in answers if a)
    assert "num_target_layers >= 4" in said and "out-of-range" in said
    assert dl.sglang_refusal({"num_hidden_layers": 8}, {}) == refusal(
        {"num_hidden_layers": 8}, {}) is not None


@pytest.mark.parametrize("algorithm", ["DFLASH", "DSPARK"])
@pytest.mark.parametrize("layers", [3, 4])
def test_pasted_lines_follow_sglang(algorithm: str, layers: int) -> None:
    """A 2-layer draft naming no target layer ids beside a target of 3 / 4 layers: graphfit
    refuses the line with SGLang's sentence exactly when SGLang's resolution raises."""
    target = dl.model_dir({"num_hidden_layers": layers})
    draft = dl.model_dir({"num_hidden_layers": 2, "block_size": 4}) if algorithm == "DFLASH" \
        else dspark_dir(None, None, None, json.dumps({"num_hidden_layers": 2}))
    written = [json.loads((Path(p) / "config.json").read_text()) for p in (target, draft)]
    expected = dl.sglang_refusal(*written, dspark=algorithm == "DSPARK")
    dl.check_pasted_layers(target, algorithm, draft, expected, layers)


@pytest.mark.parametrize("algorithm", ["DFLASH", "DSPARK"])
def test_live_server_args_follow_sglang(algorithm: str) -> None:
    """The live path (`sglang_live.config_settings`, which `from_sglang` reads) on SGLang's
    own resolved ServerArgs for the same line: refused with SGLang's sentence beside a
    3-layer target, read beside a 4-layer one."""
    from graphfit.inputs import sglang_live
    from graphfit.planner.core.errors import ConfigError
    from tests.oracle import sglang_oracle as so

    draft = dl.model_dir({"num_hidden_layers": 2, "block_size": 4}) if algorithm == "DFLASH" \
        else dspark_dir(None, None, None, json.dumps({"num_hidden_layers": 2}))
    for layers in (3, 4):
        target = dl.model_dir({"num_hidden_layers": layers})
        resolved = so.resolve(("--speculative-algorithm", algorithm,
                               "--speculative-draft-model-path", draft), model=target)
        assert not isinstance(resolved, so.Rejected), resolved
        written = [json.loads((Path(p) / "config.json").read_text()) for p in (target, draft)]
        expected = dl.sglang_refusal(*written, dspark=algorithm == "DSPARK")
        if expected is None:
            sglang_live.config_settings(resolved.record)
        else:
            with pytest.raises(ConfigError, match="num_target_layers >= 4"):
                sglang_live.config_settings(resolved.record)


def test_a_config_file_line_follows_sglang(tmp_path: Path) -> None:
    """The flags given in SGLang's `--config` YAML (merged into the line as SGLang's
    ConfigArgumentMerger does) are judged as the pasted ones: refused beside a 3-layer
    target with SGLang's sentence, planned beside a 4-layer one."""
    draft = dl.model_dir({"num_hidden_layers": 2, "block_size": 4})
    written = tmp_path / "server.yaml"
    written.write_text(f"speculative-algorithm: DFLASH\nspeculative-draft-model-path: {draft}\n")
    for layers in (3, 4):
        target = dl.model_dir({"num_hidden_layers": layers})
        expected = dl.sglang_refusal(json.loads((Path(target) / "config.json").read_text()),
                                     json.loads((Path(draft) / "config.json").read_text()))
        error = dl.pasted(target, "--config", str(written))
        assert (error is not None and "num_target_layers >= 4" in error) \
            == (expected is not None), error
        assert (expected is None) == (layers >= 4)
