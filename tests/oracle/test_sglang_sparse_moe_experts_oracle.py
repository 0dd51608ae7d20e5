"""DeepSeek-V2-family and GLM-4-MoE targets with fewer routed experts than TP ranks
(graphfit.inputs.sglang_qwen_moe_experts's `SPARSE`, issue 23 s69q), against SGLang's own
resolution and MoE block built on the meta device under the published layout
(tests/oracle/test_sglang_deepep_class_oracle.py's `sglang`): `DeepseekV2MoE`
(models/deepseek_v2.py:714-718), `Glm4MoeSparseMoeBlock` (glm4_moe.py:422-426),
`Glm4MoeLiteSparseMoeBlock` (glm4_moe_lite.py:193-197), each built on the target's first
sparse layer as the class's own `_is_layer_sparse` picks it (none: nothing is built, so the
line starts). Both sides refuse (graphfit with SGLang's ValueError and its line) or both
start the line.

Fixed lines each way (EP does not narrow the TP size these blocks read; all-dense targets and
`moe_layer_freq` skipping the only late layer start); drawn: class x experts x dense prefix x
TP x EP. Experts are powers of two here: the experts' EP split with fused shared experts is
not restated (the module's Left).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402
from tests.oracle.sglang_draft_build import NEXTN_DRAFTS  # noqa: E402
from tests.oracle.test_sglang_qwen_moe_experts_oracle import judged  # noqa: E402

KINDS = ("deepseek_v3", "glm4_moe", "glm4_moe_lite")
_DRAWN = tempfile.TemporaryDirectory(prefix="graphfit-sparse-moe-experts-")
# (kind, experts, config fields, argv)
FIXED: tuple[tuple[str, int, dict[str, Any], tuple[str, ...]], ...] = (
    ("deepseek_v3", 2, {}, ("--tp-size", "4")),
    ("deepseek_v3", 4, {}, ("--tp-size", "4")),
    ("deepseek_v3", 2, {}, ("--tp-size", "4", "--ep-size", "4")),
    ("deepseek_v3", 8, {}, ("--tp-size", "4", "--ep-size", "2")),
    ("deepseek_v3", 2, {"first_k_dense_replace": 4}, ("--tp-size", "4")),
    ("deepseek_v3", 2, {"first_k_dense_replace": 3, "moe_layer_freq": 2}, ("--tp-size", "4")),
    ("deepseek_v3", 2, {"first_k_dense_replace": 2, "moe_layer_freq": 2}, ("--tp-size", "4")),
    ("glm4_moe", 2, {}, ("--tp-size", "4")),
    ("glm4_moe", 4, {}, ("--tp-size", "4", "--ep-size", "2")),
    ("glm4_moe", 2, {"first_k_dense_replace": 4}, ("--tp-size", "4")),
    ("glm4_moe", 2, {"first_k_dense_replace": 3, "moe_layer_freq": 2}, ("--tp-size", "4")),
    ("glm4_moe_lite", 2, {}, ("--tp-size", "4")),
    ("glm4_moe_lite", 2, {"first_k_dense_replace": 3, "moe_layer_freq": 2},
     ("--tp-size", "4")),
    ("glm4_moe_lite", 8, {}, ("--tp-size", "4")),
    # the DSA classes building DeepseekV2MoE (deepseek_v2.py:3522, glm4_moe.py:1284)
    ("deepseek_v32", 2, {}, ("--tp-size", "4")), ("deepseek_v32", 4, {}, ("--tp-size", "4")),
    ("glm_moe_dsa", 2, {}, ("--tp-size", "4")), ("glm_moe_dsa", 4, {}, ("--tp-size", "4")),
)
DEEPSEEK_BLOCK = ("deepseek_v3", "deepseek_v32", "glm_moe_dsa")


def model_dir(kind: str, experts: int, fields: dict[str, Any], root: Path) -> Path:
    """A small config.json of the class (the oracle's NextN draft shapes) with `experts`
    routed experts and `fields` over them."""
    tag = "-".join(f"{k}{v}" for k, v in sorted(fields.items()))
    folder = root / f"{kind}-{experts}-{tag}"
    folder.mkdir(parents=True, exist_ok=True)
    data = {**NEXTN_DRAFTS[kind], "n_routed_experts": experts, **fields}
    (folder / "config.json").write_text(json.dumps(data))
    return folder


def _block(kind: str) -> Any:
    """The class's own MoE block on the first layer its decoder layer makes sparse."""

    def build(config: Any, quant: Any) -> None:
        if kind in DEEPSEEK_BLOCK:
            import sglang.srt.models.deepseek_v2 as m
            layer, block = m.DeepseekV2DecoderLayer, m.DeepseekV2MoE
        elif kind == "glm4_moe":
            import sglang.srt.models.glm4_moe as m
            layer, block = m.Glm4MoeDecoderLayer, m.Glm4MoeSparseMoeBlock
        else:
            import sglang.srt.models.glm4_moe_lite as m
            layer, block = m.Glm4MoeLiteDecoderLayer, m.Glm4MoeLiteSparseMoeBlock
            config.moe_layer_freq = 1  # as the class's own __init__ does (glm4_moe_lite.py:696)
        sparse = [i for i in range(config.num_hidden_layers)
                  if layer._is_layer_sparse(config, i, is_nextn=False)]
        if sparse:
            block(config=config, layer_id=sparse[0], quant_config=quant,
                  prefix=f"model.layers.{sparse[0]}.mlp")
    return build


class Built:
    """SGLang's answers on targets written by `model_dir` and built through `block_of(kind)`,
    once per (target, line), so a not-vacuous check reuses the fixed lines' builds; `compare`
    asserts graphfit agrees. The MoE-experts oracle modules (split, more classes) share it."""

    def __init__(self, block_of: Callable[[str], Any],
                 model_dir: Callable[[str, int, dict[str, Any], Path], Path]) -> None:
        self._block_of = block_of
        self._model_dir = model_dir
        self._said: dict[tuple[Path, tuple[str, ...]], str | None] = {}

    def theirs_on(self, kind: str, model: Path, argv: tuple[str, ...]) -> str | None:
        """SGLang's answer on `model` and `argv`."""
        if (model, argv) not in self._said:
            self._said[model, argv] = dc.sglang(model, argv, True, block=self._block_of(kind))
        return self._said[model, argv]

    def compare(self, kind: str, experts: int, fields: dict[str, Any],
                argv: tuple[str, ...], root: Path) -> str | None:
        """Assert both sides agree; SGLang's answer."""
        model = self._model_dir(kind, experts, fields, root)
        theirs = self.theirs_on(kind, model, argv)
        judged(model, argv, theirs, (kind, experts, fields))
        return theirs


_BUILT = Built(_block, model_dir)
theirs_on, compare = _BUILT.theirs_on, _BUILT.compare


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return tmp_path_factory.mktemp("sparse-moe-experts")


@pytest.mark.parametrize(("kind", "experts", "fields", "argv"), FIXED)
def test_fixed_lines_agree(kind: str, experts: int, fields: dict[str, Any],
                           argv: tuple[str, ...], root: Path) -> None:
    compare(kind, experts, fields, argv, root)


def test_fixed_lines_are_not_vacuous(root: Path) -> None:
    """Each class raises on some fixed line and starts on another."""
    answers = [(k, theirs_on(k, model_dir(k, n, f, root), argv)) for k, n, f, argv in FIXED]
    for kind in (*KINDS, *DEEPSEEK_BLOCK[1:]):
        said = [a for k, a in answers if k == kind]
        assert None in said and any(a and "greater than the number of experts" in a
                                    for a in said), answers


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(KINDS), st.sampled_from((1, 2, 4, 8)), st.sampled_from((0, 1, 3, 4)),
       st.sampled_from((1, 2)), st.sampled_from((1, 2, 4, 8)), st.sampled_from((1, 2, 4)))
def test_drawn_lines_agree(kind: str, experts: int, first: int, freq: int, tp: int,
                           ep: int) -> None:
    """Class x experts x dense prefix x MoE layer frequency x TP x EP (EP kept where it
    divides TP)."""
    argv: tuple[str, ...] = ("--tp-size", str(tp))
    if tp % ep == 0 and ep > 1:
        argv += ("--ep-size", str(ep))
    so.oracle()
    fields = {"first_k_dense_replace": first, "moe_layer_freq": freq}
    compare(kind, experts, fields, argv, Path(_DRAWN.name))


def test_live_server_args_agree(root: Path) -> None:
    """The live check (`from_sglang` on SGLang's own resolved ServerArgs) refuses where the
    MoE block raises and plans where it builds."""
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import ConfigError

    for kind, experts, fields, argv in (FIXED[0], FIXED[1], FIXED[4], FIXED[7]):
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
