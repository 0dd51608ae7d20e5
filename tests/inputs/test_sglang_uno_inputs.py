"""A pasted SGLang UNO line (graphfit.inputs.sglang_uno): read into SpecMethod.UNO and
planned, or refused with one `error:` line naming SGLang's reason (exit 2)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli

LINE = ["python", "-m", "sglang.launch_server", "--model-path", "m",
        "--speculative-algorithm", "UNO"]


def _plan(*extra: str) -> tuple[int, str, str]:
    return run_cli(["plan", "--json", "--", *LINE, *extra])


def test_linear_line_is_planned() -> None:
    code, out, err = _plan("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4",
                           "--attention-backend", "fa3", "--max-running-requests", "20")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["spec_method"] == "uno"
    assert doc["config"]["max_num_seqs"] == 20
    assert "uno-lora-path" not in err  # read, not "ignored"


def test_tree_line_with_split_backends_is_planned() -> None:
    code, out, err = _plan("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "8",
                           "--speculative-eagle-topk", "4", "--speculative-num-steps", "3",
                           "--prefill-attention-backend", "fa3",
                           "--decode-attention-backend", "fa3", "--max-running-requests", "9")
    assert code == 0, err
    assert {"target", "uno_draft"} <= set(json.loads(out)["components"])


@pytest.mark.parametrize(("extra", "reason"), [
    (("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3"), "--uno-lora-path"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4"), "name --attention-backend"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "triton"), "FA3 prefill and decode"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--decode-attention-backend", "flashinfer"), "FA3 prefill and decode"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--enable-deterministic-inference"), "deterministic"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--speculative-draft-model-path", "d"), "reuses the target model"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--enable-lora"), "multi-LoRA"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "8", "--speculative-eagle-topk",
      "4", "--speculative-num-steps", "3", "--attention-backend", "fa3", "--enable-pdmux"),
     "PDMux"),
    (("--uno-lora-path", "/a", "--attention-backend", "fa3"), "positive width"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--tp-size", "2"), "TP = PP = 1"),
])
def test_refused_lines_say_why(extra: tuple[str, ...], reason: str) -> None:
    code, _, err = _plan(*extra)
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1, err
    assert reason in errors[0] and len(errors[0]) <= 200, errors


def test_tree_line_with_pages_is_planned() -> None:
    """`_handle_uno` has no page-size rule (the EAGLE family's and NGRAM's do not apply)."""
    code, out, err = _plan("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "8",
                           "--speculative-eagle-topk", "4", "--speculative-num-steps", "3",
                           "--attention-backend", "fa3", "--page-size", "16",
                           "--max-running-requests", "9")
    assert code == 0, err
    assert json.loads(out)["config"]["spec_method"] == "uno"


def test_rehearse_captures_both_uno_runners() -> None:
    """The CPU runtime reads UNO's components generically: the target (width Q) and the tree
    draft (width F) are captured on the plan's buffers and replay bit-equal to eager."""
    pytest.importorskip("torch")
    code, out, err = run_cli(["rehearse", "--hidden-size", "64", "--vocab-size", "128", "--",
                              *LINE, "--uno-lora-path", "/a", "--speculative-num-draft-tokens",
                              "8", "--speculative-eagle-topk", "4", "--speculative-num-steps",
                              "3", "--attention-backend", "fa3", "--max-running-requests", "6"])
    assert code == 0, err
    assert "target:" in out and "uno_draft:" in out and "REHEARSED" in out, out
