"""DeepSeek-V2-family and GLM-4-MoE targets: the experts' EP split and a missing
`first_k_dense_replace` (graphfit.inputs.sglang_sparse_moe_split, issue 23 s70c), against
SGLang's own resolution, config object (transformers' config class of the model type) and
MoE block built on the meta device on the first layer its decoder layer makes sparse
(tests/oracle/test_sglang_sparse_moe_experts_oracle.py's `_block`): `FusedMoE`'s assert
(layers/moe/fused_moe_triton/layer.py:414) on routed + redundant experts over EP ranks, and
no MoE block at all where the class default of `first_k_dense_replace` (DeepseekV3Config: 3)
leaves every layer dense. Both sides refuse (graphfit with SGLang's exception and its line)
or both start the line.

Fixed lines each way (expert counts that are not powers of two, redundant experts that GLM-4-
MoE's block leaves out, configs without the field); drawn: class x experts x the field (absent
or a value) x layers x TP x EP x redundant experts.

Qwen3-Next (graphfit.inputs.sglang_qwen_block_reusers): fixed lines against its own
`Qwen2MoeSparseMoeBlock`, built as its decoder layer builds it (models/qwen3_next.py:549-558):
TP above `num_experts` (qwen2_moe.py:273-277) and the experts' EP split.
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
from tests.oracle import test_sglang_sparse_moe_experts_oracle as ts  # noqa: E402
from tests.oracle.sglang_draft_build import NEXTN_DRAFTS  # noqa: E402
from tests.oracle.test_sglang_qwen_moe_experts_oracle import judged  # noqa: E402

KINDS = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "glm_moe_dsa", "glm4_moe",
         "glm4_moe_lite")
ABSENT = None  # a field's value that drops it from config.json
_DRAWN = tempfile.TemporaryDirectory(prefix="graphfit-sparse-moe-split-")
_EP4 = ("--tp-size", "4", "--ep-size", "4")
_RED2 = ("--ep-num-redundant-experts", "2")
_NO_FIRST = {"first_k_dense_replace": ABSENT}
# (kind, experts, config fields, argv)
FIXED: tuple[tuple[str, int, dict[str, Any], tuple[str, ...]], ...] = (
    ("deepseek_v3", 6, {}, _EP4), ("deepseek_v3", 8, {}, _EP4),
    ("deepseek_v3", 6, {}, ("--tp-size", "4", "--ep-size", "2")),
    ("deepseek_v3", 8, {}, (*_EP4, *_RED2)), ("deepseek_v3", 6, {}, (*_EP4, *_RED2)),
    ("deepseek_v3", 6, {"first_k_dense_replace": 4}, _EP4),
    ("deepseek_v2", 6, {}, _EP4), ("deepseek_v2", 8, {}, _EP4),
    ("deepseek_v32", 6, {}, _EP4), ("deepseek_v32", 8, {}, _EP4),
    ("glm_moe_dsa", 6, {}, _EP4), ("glm_moe_dsa", 8, {}, _EP4),
    ("glm4_moe", 6, {}, _EP4), ("glm4_moe", 8, {}, (*_EP4, *_RED2)),
    ("glm4_moe_lite", 6, {}, _EP4), ("glm4_moe_lite", 8, {}, (*_EP4, *_RED2)),
    ("glm4_moe_lite", 8, {}, _EP4),
    # a missing first_k_dense_replace: the config class's default (3 / 1 / 0)
    ("deepseek_v3", 2, {**_NO_FIRST, "num_hidden_layers": 3}, ("--tp-size", "4")),
    ("deepseek_v3", 2, {**_NO_FIRST, "num_hidden_layers": 4}, ("--tp-size", "4")),
    ("deepseek_v32", 2, {**_NO_FIRST, "num_hidden_layers": 3}, ("--tp-size", "4")),
    ("glm_moe_dsa", 2, {**_NO_FIRST, "num_hidden_layers": 3}, ("--tp-size", "4")),
    ("glm4_moe", 2, {**_NO_FIRST, "num_hidden_layers": 1}, ("--tp-size", "4")),
    ("glm4_moe", 2, {**_NO_FIRST, "num_hidden_layers": 2}, ("--tp-size", "4")),
    ("deepseek_v2", 2, {**_NO_FIRST, "num_hidden_layers": 2}, ("--tp-size", "4")),
    ("deepseek_v3", 6, {**_NO_FIRST, "num_hidden_layers": 3}, _EP4),
)


# Qwen3-Next: (experts, argv)
QWEN3_NEXT: tuple[tuple[int, tuple[str, ...]], ...] = (
    (2, ("--tp-size", "4")), (4, ("--tp-size", "4")),
    (2, ("--tp-size", "4", "--ep-size", "2")), (6, _EP4), (8, _EP4), (8, (*_EP4, *_RED2)),
    (6, (*_EP4, *_RED2)),
)


def model_dir(kind: str, experts: int, fields: dict[str, Any], root: Path) -> Path:
    """A small config.json of the class (the oracle's NextN draft shapes; DeepSeek-V2 as V3's
    with its own model type) with `experts` routed experts, `fields` over them (ABSENT
    drops a field)."""
    tag = "-".join(f"{k}{v}" for k, v in sorted(fields.items()))
    folder = root / f"{kind}-{experts}-{tag}"
    folder.mkdir(parents=True, exist_ok=True)
    base = NEXTN_DRAFTS["deepseek_v3" if kind == "deepseek_v2" else kind]
    data = {**base, "n_routed_experts": experts, **fields}
    if kind == "deepseek_v2":
        data.update(architectures=["DeepseekV2ForCausalLM"], model_type="deepseek_v2")
    data = {k: v for k, v in data.items() if v is not ABSENT}
    (folder / "config.json").write_text(json.dumps(data))
    return folder


_BUILT = ts.Built(lambda kind: ts._block("deepseek_v3" if kind == "deepseek_v2" else kind),
                  model_dir)
theirs_on, compare = _BUILT.theirs_on, _BUILT.compare
_SAID: dict[tuple[Path, tuple[str, ...]], str | None] = {}  # the Qwen3-Next lines' answers


def qwen3_next_dir(experts: int, root: Path) -> Path:
    """A small Qwen3-Next config.json (the oracle's NextN draft shape) with `experts`."""
    folder = root / f"qwen3_next-{experts}"
    folder.mkdir(parents=True, exist_ok=True)
    data = {**NEXTN_DRAFTS["qwen3_next"], "num_experts": experts}
    (folder / "config.json").write_text(json.dumps(data))
    return folder


def _qwen3_next_block(config: Any, quant: Any) -> None:
    """Layer 0's MoE block as Qwen3-Next's decoder layer builds it (qwen3_next.py:549-558)."""
    import sglang.srt.models.qwen2_moe as q2

    q2.Qwen2MoeSparseMoeBlock(layer_id=0, config=config, quant_config=quant,
                              prefix="model.layers.0.mlp", support_shared_expert_fusion=True,
                              enable_cuda_shared_expert_fusion=True, reduce_results=False)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return tmp_path_factory.mktemp("sparse-moe-split")


@pytest.mark.parametrize(("kind", "experts", "fields", "argv"), FIXED)
def test_fixed_lines_agree(kind: str, experts: int, fields: dict[str, Any],
                           argv: tuple[str, ...], root: Path) -> None:
    compare(kind, experts, fields, argv, root)


def test_fixed_lines_are_not_vacuous(root: Path) -> None:
    """Each class's split assert fires on some fixed line and some line starts; a missing
    field both starts (all dense by the class default) and refuses."""
    answers = [(k, f, theirs_on(k, model_dir(k, n, f, root), argv)) for k, n, f, argv in FIXED]
    for kind in KINDS:
        said = [a for k, _, a in answers if k == kind]
        assert None in said and any(a and "AssertionError" in a for a in said), answers
    missing = [a for _, f, a in answers if f.get("first_k_dense_replace", 0) is ABSENT]
    assert None in missing and any(a and "greater than the number" in a for a in missing)


@pytest.mark.parametrize(("experts", "argv"), QWEN3_NEXT)
def test_qwen3_next_lines_agree(experts: int, argv: tuple[str, ...], root: Path) -> None:
    model = qwen3_next_dir(experts, root)
    if (model, argv) not in _SAID:
        _SAID[model, argv] = dc.sglang(model, argv, True, block=_qwen3_next_block)
    judged(model, argv, _SAID[model, argv], ("qwen3_next", experts))


def test_qwen3_next_lines_are_not_vacuous(root: Path) -> None:
    """Both refusals and a start among the Qwen3-Next lines."""
    said = [_SAID.get((qwen3_next_dir(n, root), argv)) or dc.sglang(
        qwen3_next_dir(n, root), argv, True, block=_qwen3_next_block) for n, argv in QWEN3_NEXT]
    assert None in said and any(a and "greater than the number" in a for a in said) and any(
        a and "AssertionError" in a for a in said), said


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(KINDS), st.sampled_from((2, 3, 4, 6, 8)),
       st.sampled_from((ABSENT, 0, 1, 3)), st.sampled_from((2, 3, 4)),
       st.sampled_from((1, 2, 4, 8)), st.sampled_from((1, 2, 4)), st.sampled_from((0, 2)))
def test_drawn_lines_agree(kind: str, experts: int, first: int | None, layers: int, tp: int,
                           ep: int, redundant: int) -> None:
    """Class x experts x first_k_dense_replace (absent or a value) x layers x TP x EP (kept
    where it divides TP) x redundant experts."""
    so.oracle()
    if kind == "glm4_moe_lite" and first is ABSENT:
        first = 1  # Glm4MoeLiteConfig has no such field: SGLang's AttributeError (module's Left)
    compare(kind, experts, {"first_k_dense_replace": first, "num_hidden_layers": layers},
            drawn_argv(tp, ep, redundant), Path(_DRAWN.name))


def drawn_argv(tp: int, ep: int, redundant: int) -> tuple[str, ...]:
    """A line of TP, EP (where it divides TP) and redundant experts (with EP only)."""
    argv: tuple[str, ...] = ("--tp-size", str(tp))
    if tp % ep == 0 and ep > 1:
        argv += ("--ep-size", str(ep))
        if redundant:
            argv += ("--ep-num-redundant-experts", str(redundant))
    return argv


def test_live_server_args_agree(root: Path) -> None:
    """The live check (`from_sglang` on SGLang's own resolved ServerArgs) refuses where the
    experts do not split and plans where the class default leaves every layer dense."""
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import ConfigError

    for kind, experts, fields, argv in (FIXED[0], FIXED[1], FIXED[17]):
        model = model_dir(kind, experts, fields, root)
        theirs = theirs_on(kind, model, argv)
        r = so.resolve(argv, model=str(model))
        assert isinstance(r, so.Resolved), r
        try:
            from_sglang(r.record, environ={}, max_num_seqs=8, gpu_memory_gb=80.0)
            said = None
        except ConfigError as exc:
            said = str(exc)
        assert (theirs is None) == (said is None), (kind, experts, fields, argv, theirs, said)
