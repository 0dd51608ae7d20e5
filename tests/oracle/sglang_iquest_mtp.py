"""IQuest Q1 targets with an MTP draft: SGLang 0.5.23's own argument pipeline
(`_handle_iquest_q1_mtp_draft`, arg_groups/speculative_hook.py:1014-1058, with its own
IQuestQ1MTPConfig loaded by `get_config`) against `graphfit plan` of the same pasted line
(graphfit.inputs.sglang_iquest_mtp). Shared by test_sglang_iquest_mtp_oracle.py and
measure_sglang_iquest_mtp.py.

The target is the oracle's Llama shape under the IQuestQ1ForCausalLM architecture
(tests/oracle/sglang_stubs.write_model_dir), as the other IQuest oracle tests use it.
"""

from __future__ import annotations

import json
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.oracle import sglang_oracle as so
from tests.oracle.config_dirs import content_dir

HIDDEN, VOCAB, LAYERS = 4096, 128256, 32  # the oracle target's (write_model_dir)


@lru_cache(maxsize=1)
def _root() -> Path:
    return Path(tempfile.mkdtemp(prefix="graphfit-iquest-mtp-"))


@lru_cache(maxsize=1)
def target() -> str:
    from tests.oracle import sglang_stubs as ss

    return str(ss.write_model_dir(_root() / "target", architecture="IQuestQ1ForCausalLM"))


def draft(**keys: Any) -> str:
    """An MTP draft directory (a key set to `None` is dropped from the base)."""
    config: dict[str, Any] = {
        "architectures": ["IQuestQ1MTP"], "model_type": "iquest_q1_mtp",
        "hidden_size": HIDDEN, "vocab_size": VOCAB, "num_hidden_layers": 1,
        "num_target_layers": LAYERS, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128}
    for key, value in keys.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return content_dir(_root(), json.dumps(config, sort_keys=True))


def sglang(argv: tuple[str, ...]) -> tuple[str, Any]:
    """("refused", SGLang's last error line) or ("planned", (steps, topk, draft tokens))."""
    r = so.resolve(argv, model=target())
    if isinstance(r, so.Rejected):
        return "refused", (r.text.strip().splitlines() or [""])[-1]
    return "planned", (r.speculative_num_steps, r.speculative_eagle_topk,
                       r.speculative_num_draft_tokens)


def graphfit(argv: tuple[str, ...]) -> tuple[str, Any]:
    from tests.helpers import run_cli

    code, out, text = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--", "python",
                               "-m", "sglang.launch_server", "--model-path", target(), *argv])
    if code != 0:
        return "refused", next((ln for ln in text.splitlines() if ln.startswith("error:")),
                               text.strip()[-200:])
    c = json.loads(out)["config"]
    return "planned", (c["num_speculative_tokens"], c["speculative_eagle_topk"],
                       c["speculative_num_draft_tokens"])


def compare(argv: tuple[str, ...]) -> tuple[str, str]:
    """(outcome, detail): "planned" / "refused" when both agree (a refusal must carry
    SGLang's own message), else "differs"."""
    ours, theirs = sglang(argv), graphfit(argv)
    if ours[0] != theirs[0]:
        return "differs", f"SGLang {ours}, graphfit {theirs}"
    if ours[0] == "refused":
        message = str(ours[1]).removeprefix("ValueError: ").rstrip(".")
        if message not in str(theirs[1]):
            return "differs", f"SGLang {ours[1]!r}, graphfit {theirs[1]!r}"
        return "refused", ""
    return ("planned", "") if ours[1] == theirs[1] else ("differs", f"{ours} vs {theirs}")


def _rarely(draw: st.DrawFn) -> bool:
    return draw(st.integers(0, 7)) == 0


@st.composite
def lines(draw: st.DrawFn) -> tuple[str, ...]:
    """An EAGLE / NEXTN line over a generated MTP draft: its type, widths, layer counts,
    slots, target_config, plus the line's steps / topk / draft tokens / token map (each off
    the accepted shape now and then)."""
    keys: dict[str, Any] = {}
    if _rarely(draw):
        keys["model_type"] = "llama"
    for key, good, other in (("hidden_size", HIDDEN, 3072), ("vocab_size", VOCAB, 160000),
                             ("num_target_layers", LAYERS, 88)):
        if _rarely(draw):
            keys[key] = draw(st.sampled_from([other, None, 0]))
        elif draw(st.booleans()):
            keys[key] = good
    if draw(st.booleans()):
        keys["num_draft_slots"] = draw(st.sampled_from([1, 3, 7, 0]) if _rarely(draw)
                                       else st.sampled_from([1, 3, 7]))
    if _rarely(draw):
        keys["num_hidden_layers"] = 2
    if draw(st.booleans()):
        keys["target_config"] = {"hidden_size": HIDDEN, "vocab_size": VOCAB,
                                 "num_hidden_layers": 88 if _rarely(draw) else LAYERS}
    flags: list[str] = ["--speculative-algorithm", draw(st.sampled_from(["EAGLE", "NEXTN"])),
                        "--speculative-draft-model-path", draft(**keys)]
    if draw(st.booleans()):
        steps = draw(st.sampled_from([1, 3, 5]))
        flags += ["--speculative-num-steps", str(steps),
                  "--speculative-eagle-topk", "2" if _rarely(draw) else "1",
                  "--speculative-num-draft-tokens", str(steps + (2 if _rarely(draw) else 1))]
    if _rarely(draw):
        flags += ["--speculative-token-map", "hot.pt"]
    return tuple(flags)
