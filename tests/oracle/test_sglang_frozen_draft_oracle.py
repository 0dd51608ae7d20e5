"""SGLang 0.5.23 FROZEN_KV_MTP: the draft loop's hidden width comes from the DRAFT model.

`FrozenKVMTPCudaGraphRunner` sizes hidden_states (max_bs, `_recurrent_hidden_size`)
(frozen_kv_mtp_cuda_graph_runner.py:150-154): the draft model's `backbone_hidden_size`
(frozen_kv_mtp_worker_v2.py:329-331, models/gemma4_mtp.py:80), and a Gemma 4 assistant draft
also turns `--speculative-algorithm EAGLE` / `NEXTN` into FROZEN_KV_MTP (and EAGLE3 into an
error: speculative_hook.py:81-118). SGLang's side: its own argument pipeline on the line, its
own `get_config` of the draft directory written here and its own runner class
(tests/oracle/sglang_oracle.py `_frozen_hidden`, `_frozen_runner`); graphfit's side: the same
line pasted into `graphfit plan`, compared on acceptance, components, ladders, padding of every
batch, buffer shapes / dtypes and padding fills.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle import sglang_dflash_compare as dc  # noqa: E402
from tests.oracle import sglang_draft_shape  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.config_dirs import content_dir  # noqa: E402

# a small Gemma 4 assistant config HF's Gemma4AssistantConfig accepts (its
# validate_architecture: no per-layer inputs, no MoE block, every layer KV-shared)
TEXT = {"model_type": "gemma4_text", "hidden_size": 256, "num_hidden_layers": 4,
        "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 64,
        "intermediate_size": 1024, "vocab_size": 128256, "hidden_size_per_layer_input": 0,
        "vocab_size_per_layer_input": 0, "enable_moe_block": False,
        "use_double_wide_mlp": False, "num_kv_shared_layers": 4}


def gemma_draft(**extra: Any) -> str:
    config = {"architectures": ["Gemma4AssistantForCausalLM"], "model_type": "gemma4_assistant",
              "torch_dtype": "bfloat16", "text_config": TEXT, **extra}
    return content_dir(dc._drafts_root(), json.dumps(config, sort_keys=True), prefix="gemma-")


def spec(algo: str, draft: str, steps: int = 3, topk: int = 1, drafts: int = 4,
         *extra: str) -> tuple[str, ...]:
    return ("--max-running-requests", "24", "--speculative-algorithm", algo,
            "--speculative-num-steps", str(steps), "--speculative-eagle-topk", str(topk),
            "--speculative-num-draft-tokens", str(drafts), *extra, dc.DRAFT, draft)


def compare(argv: tuple[str, ...]) -> tuple[str, list[sc.Difference]]:
    outcome, diffs, sg = sglang_draft_shape.compare_drafted(
        argv, lambda sg, gf: sc.compare_padding(sg, gf, "frozen_drafter"), sc.compare_fills)
    # (the extra-buffer direction is compare_drafted's own since issue 23 s50o)
    if outcome != "planned":
        return outcome, diffs
    return ("frozen" if "frozen_drafter" in sg.runners else "other"), diffs


LINES = [
    (spec("FROZEN_KV_MTP", gemma_draft(backbone_hidden_size=2560)), "frozen", 2560),
    (spec("EAGLE", gemma_draft(backbone_hidden_size=2560)), "frozen", 2560),  # promoted
    (spec("NEXTN", gemma_draft(backbone_hidden_size=3072), 2, 2, 4), "frozen", 3072),
    (spec("FROZEN_KV_MTP", gemma_draft()), "frozen", 1536),  # HF's class default
    (spec("EAGLE3", gemma_draft(backbone_hidden_size=2560)), "rejected", None),
    (spec("FROZEN_KV_MTP", gemma_draft(backbone_hidden_size=2560), 3, 1, 4,
          "--disable-cuda-graph-padding", "--tp-size", "2"), "frozen", 2560),
    # the draft's dtype (graphfit.inputs.sglang_draft_shape): the text sub-config's own,
    # else the top level's; float32 becomes bfloat16 for a gemma model type
    (spec("FROZEN_KV_MTP", gemma_draft(backbone_hidden_size=2560, torch_dtype="float16")),
     "frozen", 2560),
    (spec("FROZEN_KV_MTP", gemma_draft(backbone_hidden_size=2560, torch_dtype="float16",
                                       text_config={**TEXT, "torch_dtype": "float32"})),
     "frozen", 2560),
]


@pytest.mark.parametrize(("argv", "outcome", "width"), LINES,
                         ids=[f"{a[3]}-{w}-{i}" for i, (a, _, w) in enumerate(LINES)])
def test_frozen_kv_mtp_width_from_the_draft(argv: tuple[str, ...], outcome: str,
                                            width: int | None) -> None:
    got, diffs = compare(argv)
    assert (got, diffs) == (outcome, [])
    if width is not None:
        run = sc.sglang(argv, 80).runners
        assert run is not None
        assert run["frozen_drafter"].buffers["hidden_states"].shape[-1] == width
        assert width != 4096  # not the target's: the case graphfit used to get wrong


def test_a_frozen_draft_without_a_backbone_is_refused() -> None:
    """A non-Gemma draft (the oracle's Llama directory): SGLang's runner would read a
    `backbone_hidden_size` the model does not have (models/gemma4_mtp.py:80 is the only one);
    graphfit refuses naming it."""
    gf = dc.pasted(spec("FROZEN_KV_MTP", str(so.oracle().model_dir)), 80)
    assert gf.rejected is not None and "backbone_hidden_size" in gf.rejected
