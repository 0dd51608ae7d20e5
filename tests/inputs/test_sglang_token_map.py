"""graphfit.inputs.sglang_token_map: a local --speculative-token-map sets the EAGLE draft-extend
logits width to its length (SGLang's own load is compared in
tests/oracle/test_sglang_draft_shape_oracle.py); a hub map, or no torch, keeps the draft's
vocabulary with a note; a file SGLang's load would fail on is refused with one error line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.inputs import sglang_token_map
from tests.helpers import eagle_dirs, run_cli

torch = pytest.importorskip("torch")  # the reader's own dependency (the torch extra)

def _plan(target: str, draft: str, token_map: str, *extra: str) -> tuple[int, str, str]:
    return run_cli(["plan", "--json", "--", "python", "-m", "sglang.launch_server",
                    "--model-path", target, "--speculative-algorithm", "EAGLE",
                    "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                    "--speculative-num-draft-tokens", "4", "--speculative-draft-model-path",
                    draft, "--speculative-token-map", token_map, *extra])


def _width(out: str) -> int:
    return int(json.loads(out)["config"]["options"]["draft_vocab_size"])


def test_a_local_map_sets_the_logits_width(tmp_path: Path) -> None:
    target, draft = eagle_dirs(tmp_path)
    path = tmp_path / "hot.pt"
    torch.save(list(range(4096)), path)
    code, out, text = _plan(target, draft, str(path))
    assert code == 0, text
    assert _width(out) == 4096
    assert "upper bound" not in text


def test_a_config_width_wins_over_the_map(tmp_path: Path) -> None:
    target, draft = eagle_dirs(tmp_path, hot_vocab_size=16384)  # hasattr first (:233-241)
    path = tmp_path / "hot.pt"
    torch.save(list(range(4096)), path)
    code, out, text = _plan(target, draft, str(path))
    assert code == 0 and _width(out) == 16384, text


def test_a_hub_map_keeps_the_upper_bound(tmp_path: Path) -> None:
    target, draft = eagle_dirs(tmp_path)
    code, out, text = _plan(target, draft, "example-org/hot-map/hot.pt")
    assert code == 0 and _width(out) == 32000, text
    assert "hub file" in text and "upper bound" in text


def test_without_torch_the_map_is_not_read(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    target, draft = eagle_dirs(tmp_path)
    path = tmp_path / "hot.pt"
    torch.save(list(range(4096)), path)
    monkeypatch.setattr(sglang_token_map, "torch_available", lambda: False)
    code, out, text = _plan(target, draft, str(path))
    assert code == 0 and _width(out) == 32000, text
    assert "torch is not installed" in text


@pytest.mark.parametrize("content", [b"not a torch file", None, [], 7])
def test_unloadable_maps_are_refused(tmp_path: Path, content: object) -> None:
    target, draft = eagle_dirs(tmp_path)
    path = tmp_path / "hot.pt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is None:
        torch.save({"ids": [1, 2]}, path)  # a dict: torch.tensor refuses it
    else:
        torch.save(content, path)
    code, _, text = _plan(target, draft, str(path))
    errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1 and len(errors[0]) <= 200, text
    assert "Traceback" not in text
