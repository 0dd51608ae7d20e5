"""graphfit.inputs.sglang_dspark_mask: with a hub-id target the DSPARK mask id is said to be
unchecked (SGLang's bound is the target's padded rows, which only its config.json gives);
with a local target the worker's check runs instead (tests/inputs/test_sglang_dspark_worker.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli

HEAD = {"markov_rank": 1, "markov_head_type": "vanilla"}


def _draft(root: Path, mask: int) -> str:
    directory = root / f"draft{mask}"
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024,
        "num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 1000,
        "torch_dtype": "bfloat16", "mask_token_id": mask, **HEAD}))
    return str(directory)


def _line(target: str, draft: str) -> tuple[int, str]:
    code, _, text = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                             "--model-path", target, "--speculative-algorithm", "DSPARK",
                             "--speculative-draft-model-path", draft])
    return code, text


def test_a_hub_target_plans_and_says_the_mask_is_unchecked(tmp_path: Path) -> None:
    for mask in (5, 999_999):  # either side of any vocabulary: planned, never refused
        code, text = _line("example-org/not-local-model", _draft(tmp_path, mask))
        notes = [ln for ln in text.splitlines() if "mask_token_id" in ln]
        assert code == 0, text
        assert len(notes) == 1 and f"mask_token_id {mask} not checked" in notes[0], notes


def test_a_local_target_checks_instead(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    (target / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024,
        "num_hidden_layers": 4, "num_attention_heads": 8, "vocab_size": 1000,
        "torch_dtype": "bfloat16"}))
    code, text = _line(str(target), _draft(tmp_path, 5))
    assert code == 0 and "not checked" not in text, text
    code, text = _line(str(target), _draft(tmp_path, 1000))
    assert code == 2 and "outside the target vocab size 1000" in text, text
