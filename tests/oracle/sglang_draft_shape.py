"""EAGLE-family drafts whose vocabulary, dtype or aux width differ from the target's: SGLang
0.5.23's real runner constructors (EAGLEDraftCudaGraphRunner, EAGLEDraftExtendCudaGraphRunner,
the multi-layer composite, FrozenKVMTPCudaGraphRunner) built on a draft model runner whose
ModelConfig is SGLang's own of a generated local draft directory (tests/oracle/sglang_oracle.py
`_draft_model_config`), against `graphfit plan` of the same pasted line.

Shared by test_sglang_draft_shape_oracle.py (a few fixed and generated lines) and
measure_sglang_draft_shape.py (many generated lines; before/after in one run).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dflash_compare as dc

# one more comparison of (SGLang's side, graphfit's) after the shared ones
Check = Callable[[sc.SglangAnswer, sc.GraphfitAnswer], list[sc.Difference]]

# the oracle's target (tests/oracle/sglang_stubs.py write_model_dir): Llama, hidden 4096,
# vocab 128256, bfloat16
TARGET_HIDDEN, TARGET_VOCAB = 4096, 128256
BASE = {"model_type": "llama", "hidden_size": TARGET_HIDDEN, "num_hidden_layers": 1,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "intermediate_size": 14336, "vocab_size": TARGET_VOCAB,
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
        "hidden_act": "silu", "tie_word_embeddings": False}


@lru_cache(maxsize=1)
def _root() -> Path:
    return Path(tempfile.mkdtemp(prefix="graphfit-sglang-draft-shape-"))


def draft(architecture: str, **extra: Any) -> str:
    """A draft model directory named by its content (SGLang's answers are cached per line);
    a key given as `_drop_<key>` is removed from the base config."""
    config: dict[str, Any] = {"architectures": [architecture], **BASE}
    for key, value in extra.items():
        if key.startswith("_drop_"):
            config.pop(key.removeprefix("_drop_"), None)
        else:
            config[key] = value
    text = json.dumps(config, sort_keys=True)
    directory = _root() / hashlib.sha256(text.encode()).hexdigest()[:12]
    if not directory.exists():
        directory.mkdir()
        (directory / "config.json").write_text(text)
    return str(directory)


def token_map(ids: int) -> str:
    """A local --speculative-token-map of `ids` hot-token ids, saved as SGLang's FR-Spec
    maps are (a list torch.save writes; spec_utils.py:818 loads it)."""
    import torch

    path = _root() / f"hot-{ids}.pt"
    if not path.exists():
        torch.save(list(range(0, 2 * ids, 2)), path)
    return str(path)


def line(algo: str, path: str, *extra: str, steps: int = 3, topk: int = 1, drafts: int = 4,
         max_running: int = 24) -> tuple[str, ...]:
    return ("--max-running-requests", str(max_running), "--speculative-algorithm", algo,
            "--speculative-num-steps", str(steps), "--speculative-eagle-topk", str(topk),
            "--speculative-num-draft-tokens", str(drafts), *extra, dc.DRAFT, path)


def compare(argv: tuple[str, ...]) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences): "planned" (both plan, the same draft buffers), "rejected"
    (both refuse), "differs"."""
    if "DFLASH" in argv:  # the block-draft comparison (sglang_block_drafts)
        got, diffs = dc.compare_line(argv)
        return ("planned" if got in ("runner", "no_runner") else got), diffs
    outcome, diffs, _ = compare_drafted(argv)
    return outcome, diffs


def compare_drafted(argv: tuple[str, ...], *more: Check
                    ) -> tuple[str, list[sc.Difference], sc.SglangAnswer]:
    """(outcome, differences, SGLang's side) of a drafted line: "differs" (acceptance, or
    the target / draft ladders, components, buffers both ways, then each of `more`, differ),
    "rejected" (both refuse) or "planned"; the frozen-drafter test's `more` adds its own."""
    sg = sc.sglang(argv, 80)
    gf = dc.pasted(argv, 80)
    diffs = sc.compare_acceptance(sg, gf)
    if diffs:
        return "differs", diffs, sg
    if sg.rejected is not None:
        return "rejected", [], sg
    assert sg.runners is not None
    diffs += (sc.compare_target_ladder(sg, gf) + sc.compare_components(sg, gf)
              + sc.compare_draft_ladder(sg, gf) + sc.compare_buffers(sg, gf, extra=True))
    for check in more:
        diffs += check(sg, gf)
    return ("differs" if diffs else "planned"), diffs, sg


def draft_logits_allocation(argv: tuple[str, ...], runner: str = "draft_extend"
                            ) -> tuple[int, int] | None:
    """(SGLang's, graphfit's) elements of the tensor behind a draft runner's logits view (the
    EAGLE draft-extend runner, or DFLASH's "dflash_draft"); None when SGLang builds no such
    runner, or when the view is of the target's vocabulary (then it is the target's own
    tensor, graph_shared_output.py:67). SGLang's: its runners built under
    its own `GraphSharedOutput` (tests/oracle/sglang_adaptive_oracle.shared_output), the
    view's base tensor; graphfit's: the buffer's reference rows (what the engine allocates)
    times its columns, or its shared buffer's when it is one."""
    import math

    from tests.oracle import sglang_adaptive_oracle as sa
    from tests.oracle import sglang_oracle as so

    sg = sc.sglang(argv, 80)
    if sg.runners is None or runner not in sg.runners:
        return None
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    with so.sharing(sa.shared_output(r)):
        built = so.runners(r)
    view = sa._live(built[runner], "next_token_logits_buffer")
    root = view._base if view._base is not None else view
    if view.shape[-1] == sc.sglang(argv, 80).runners["target"].buffers[  # type: ignore[index]
            "next_token_logits_buffer"].shape[-1]:
        return None
    plan = dc.pasted(argv, 80).plan
    assert plan is not None
    buf = next(b for b in plan.components[runner].buffers
               if b.name == "next_token_logits_buffer")
    rows = plan.shared[buf.shared].reference_capacity if buf.shared else buf.reference_capacity
    return int(root.numel()), rows * math.prod(buf.spec.trailing)


DTYPES = st.sampled_from([None, "float16", "bfloat16", "float32"])
FLAG_DTYPES = st.sampled_from([None, "auto", "float16", "bfloat16", "half"])
VOCABS = st.sampled_from([TARGET_VOCAB, 32000, 16384, 151936])


@st.composite
def lines(draw: st.DrawFn) -> tuple[str, ...]:
    """An EAGLE / EAGLE3 / NEXTN / STANDALONE / DFLASH line over a generated draft config: its
    dtype (or none), the --dtype flag, its vocabulary keys, EAGLE3's aux keys, multi-layer
    EAGLE, DFLASH's block."""
    algo = draw(st.sampled_from(["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "DFLASH"]))
    extra: dict[str, Any] = {}
    dtype = draw(DTYPES)
    if dtype is not None:
        extra[draw(st.sampled_from(["torch_dtype", "dtype"]))] = dtype
    extra["vocab_size"] = draw(VOCABS)
    arch = {"EAGLE3": "LlamaForCausalLMEagle3", "STANDALONE": "LlamaForCausalLM",
            "DFLASH": "DFlashDraftModel"}.get(algo, "LlamaForCausalLMEagle")
    if algo == "EAGLE3":
        extra["draft_vocab_size"] = draw(VOCABS)
        if draw(st.booleans()):
            extra["target_hidden_size"] = draw(st.sampled_from([TARGET_HIDDEN, 2048, 5120]))
        aux = draw(st.sampled_from([None, "ids", "count", "off"]))
        if aux == "ids":
            extra["eagle_config"] = {"eagle_aux_hidden_state_layer_ids":
                                     draw(st.lists(st.integers(1, 30), min_size=1,
                                                   max_size=5))}
        elif aux == "count":
            extra["num_aux_hidden_states"] = draw(st.integers(1, 5))
        elif aux == "off":
            extra["eagle_config"] = {"use_aux_hidden_state": False}
    elif algo == "DFLASH":
        extra["block_size"] = draw(st.integers(2, 8))
    elif algo != "STANDALONE":
        key = draw(st.sampled_from([None, "draft_vocab_size", "hot_vocab_size"]))
        if key is not None:
            extra[key] = draw(VOCABS)
    flags: list[str] = []
    flag = draw(FLAG_DTYPES)
    if flag is not None:
        flags += ["--dtype", flag]
    if algo == "DFLASH":
        return ("--max-running-requests", str(draw(st.sampled_from([8, 24, 48]))),
                "--speculative-algorithm", "DFLASH", *flags, dc.DRAFT, draft(arch, **extra))
    if algo != "STANDALONE" and draw(st.booleans()):
        flags.append("--enable-multi-layer-eagle")
    steps, topk, drafts = draw(st.sampled_from([(3, 1, 4), (2, 1, 3), (1, 1, 2)]))
    return line(algo, draft(arch, **extra), *flags, steps=steps, topk=topk, drafts=drafts,
                max_running=draw(st.sampled_from([8, 24, 48])))


def named_file(suffix: str, text: str) -> str:
    """A file holding `text` (a config file for `--config`), named by its content in this
    module's directory: the same text is the same path, so SGLang's answers cached per line
    stay valid across tests."""
    path = _root() / f"{hashlib.sha256(text.encode()).hexdigest()[:12]}{suffix}"
    if not path.exists():
        path.write_text(text)
    return str(path)
