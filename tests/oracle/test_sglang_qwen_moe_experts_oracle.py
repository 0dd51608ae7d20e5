"""A Qwen MoE target with fewer experts than its MoE block's ranks
(graphfit.inputs.sglang_qwen_moe_experts, issue 23 s69n), against SGLang's own resolution and
MoE block built on the meta device under the published layout
(tests/oracle/test_sglang_deepep_class_oracle.py's `sglang`): Qwen3-MoE's
`Qwen3MoeSparseMoeBlock` (MoE-TP size, models/qwen3_moe.py:243-250) and Qwen2-MoE's
`Qwen2MoeSparseMoeBlock` (TP size, models/qwen2_moe.py:270-277). Both sides refuse (graphfit
with SGLang's ValueError and its line) or both start the line.

Then the experts' split over the EP ranks (FusedMoE's assert, layers/moe/fused_moe_triton/
layer.py:414). Fixed lines each way (EP and --moe-dp-size narrowing Qwen3-MoE's MoE-TP below
the expert count, Qwen2-MoE reading the full TP size, experts that do not split over EP);
drawn: experts x TP x EP x MoE DP.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402
from tests.oracle.test_sglang_minimax_target_oracle import cites  # noqa: E402

BASE: dict[str, Any] = {
    "hidden_size": 1024, "intermediate_size": 2048, "moe_intermediate_size": 256,
    "num_experts_per_tok": 1, "decoder_sparse_step": 1, "norm_topk_prob": True,
    "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 64,
    "num_hidden_layers": 2, "vocab_size": 4096, "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "torch_dtype": "bfloat16",
    "hidden_act": "silu", "tie_word_embeddings": False}
QWEN3 = {**BASE, "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe"}
QWEN2 = {**BASE, "architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe",
         "shared_expert_intermediate_size": 512}
_DRAWN = tempfile.TemporaryDirectory(prefix="graphfit-qwen-moe-experts-")
FIXED: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("qwen3", 2, ("--tp-size", "4")), ("qwen3", 4, ("--tp-size", "4")),
    ("qwen3", 2, ("--tp-size", "4", "--ep-size", "2")),
    ("qwen3", 1, ("--tp-size", "4", "--ep-size", "2")),
    ("qwen3", 2, ("--tp-size", "8", "--ep-size", "2", "--moe-dp-size", "2")),
    ("qwen3", 2, ("--tp-size", "8", "--ep-size", "2")),
    ("qwen2", 2, ("--tp-size", "4")), ("qwen2", 2, ("--tp-size", "4", "--ep-size", "2")),
    ("qwen2", 4, ("--tp-size", "4")),
    # the experts' EP split (fused_moe_triton/layer.py:414)
    ("qwen3", 1, ("--tp-size", "2", "--ep-size", "2")),
    ("qwen3", 3, ("--tp-size", "4", "--ep-size", "4")),
    ("qwen2", 3, ("--tp-size", "2", "--ep-size", "2")),
)


def model_dir(kind: str, experts: int, root: Path) -> Path:
    """A small Qwen3-MoE / Qwen2-MoE config.json with `experts` experts."""
    folder = root / f"{kind}-{experts}"
    folder.mkdir(parents=True, exist_ok=True)
    fields = QWEN3 if kind == "qwen3" else QWEN2
    (folder / "config.json").write_text(json.dumps({**fields, "num_experts": experts}))
    return folder


def _block(kind: str) -> Any:
    """The class's own MoE block, built as its decoder layer builds layer 0's."""
    if kind == "qwen3":
        return dc._qwen3_block

    def qwen2(config: Any, quant: Any) -> None:
        import sglang.srt.models.qwen2_moe as q2

        q2.Qwen2MoeSparseMoeBlock(layer_id=0, config=config, quant_config=quant,
                                  prefix="model.layers.0.mlp")
    return qwen2


def compare(kind: str, experts: int, argv: tuple[str, ...], root: Path) -> str | None:
    """Assert both sides agree; SGLang's answer."""
    model = model_dir(kind, experts, root)
    theirs = dc.sglang(model, argv, True, block=_block(kind))
    judged(model, argv, theirs, (kind, experts))
    return theirs


def judged(model: Path, argv: tuple[str, ...], theirs: str | None,
           case: tuple[Any, ...]) -> None:
    """Assert graphfit starts where SGLang does and otherwise refuses in one line, naming
    the class and citing the site SGLang's build refusal names (this module's and the
    sparse-MoE experts module's comparisons)."""
    code, said = dc.graphfit(model, argv, True)
    case = (*case, argv, theirs, code, said)
    if theirs is None:
        assert code == 0, case
    else:
        assert code == 2 and len(said) <= 200, case
    if theirs is not None and theirs.startswith("build: ") and " @ " in theirs:
        kind_said = theirs.removeprefix("build: ").split(":", 1)[0]
        assert f"({kind_said}, " in said and cites(said, theirs.rsplit(" @ ", 1)[1]), case


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return tmp_path_factory.mktemp("qwen-moe-experts")


@pytest.mark.parametrize(("kind", "experts", "argv"), FIXED)
def test_fixed_lines_agree(kind: str, experts: int, argv: tuple[str, ...], root: Path) -> None:
    compare(kind, experts, argv, root)


def test_fixed_lines_are_not_vacuous(root: Path) -> None:
    """Both classes raise on some fixed line and start on another."""
    answers = [(kind, dc.sglang(model_dir(kind, n, root), argv, True, block=_block(kind)))
               for kind, n, argv in FIXED]
    for kind in ("qwen3", "qwen2"):
        said = [a for k, a in answers if k == kind]
        assert None in said and any(a and "greater than the number of experts" in a
                                    for a in said), answers


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(("qwen3", "qwen3", "qwen2")), st.sampled_from((1, 2, 3, 4, 8)),
       st.sampled_from((1, 2, 4, 8)), st.sampled_from((1, 2, 4)), st.sampled_from((1, 2)))
def test_drawn_lines_agree(kind: str, experts: int, tp: int, ep: int, moe_dp: int) -> None:
    """Experts x TP x EP x MoE DP (kept where they divide TP)."""
    argv: tuple[str, ...] = ("--tp-size", str(tp))
    if tp % ep == 0 and ep > 1:
        argv += ("--ep-size", str(ep))
    if tp % (moe_dp * ep) == 0 and moe_dp > 1:
        argv += ("--moe-dp-size", str(moe_dp))
    so.oracle()
    compare(kind, experts, argv, Path(_DRAWN.name))


def test_live_server_args_agree(root: Path) -> None:
    """The live check (`from_sglang` on SGLang's own resolved ServerArgs) refuses where the
    MoE block raises and plans where it builds."""
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import ConfigError

    for kind, experts, argv in (FIXED[0], FIXED[1], FIXED[6], FIXED[9]):
        model = model_dir(kind, experts, root)
        theirs = dc.sglang(model, argv, True, block=_block(kind))
        r = so.resolve(argv, model=str(model))
        assert isinstance(r, so.Resolved), r
        try:
            from_sglang(r.record, environ={}, max_num_seqs=8, gpu_memory_gb=80.0)
            said = None
        except ConfigError as exc:
            said = str(exc)
        assert (theirs is None) == (said is None), (kind, experts, argv, theirs, said)
