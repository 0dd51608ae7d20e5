"""graphfit == SGLang 0.5.23 on a MoE draft's dispatcher under `--speculative-moe-a2a-backend
mooncake` / `nixl` (graphfit.inputs.sglang_draft_a2a; issue 23, s54e).

SGLang: its own resolution of the line on a Qwen3-MoE target
(tests.oracle.sglang_oracle.resolve), then, where that starts, the draft model its loader
picks for the draft checkpoint (the draft ModelConfig's class rename, configs/model_config.py:
1010-1211, and `get_model_architecture`, model_loader/utils.py:198-232) built on the meta
device inside `speculative_moe_a2a_backend_context` (layers/moe/utils.py:957-975), as the
EAGLE worker builds it (speculative/eagle_worker_v2.py:215-231), under the published layout
and the glue of tests.oracle.test_sglang_deepep_class_oracle.sglang (Mooncake's and NixlEP's
packages reported installed, tests.oracle.sglang_mooncake_build). graphfit: its CLI on the
pasted line. Each line must be refused by both, naming the dispatcher's file, or started by
both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_build as sdb  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402

SITES = ("mooncake.py:34", "nixl.py:48", "pplx.py:44")  # what SGLang's raise and graphfit's
# reason name (s63d: pplx's)


def _draft_builder(record: Any, draft: Path, context: bool) -> Any:
    """The block `dc.sglang` builds: the draft model SGLang's loader makes for `draft`
    (tests.oracle.sglang_draft_build.build_draft), inside the speculative a2a context where
    the worker enters it (`context`)."""

    def build(config: Any, quant: Any) -> None:
        from sglang.srt.runtime_context import get_parallel

        sdb.build_draft(record, str(draft), context, get_parallel().moe_ep_size)

    return build


def _argv(draft: Path, backend: str, mode: str, *extra: str) -> tuple[str, ...]:
    return ("--tp-size", "2", "--ep-size", "2", "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "3", "--speculative-draft-model-path", str(draft),
            "--speculative-moe-a2a-backend", backend, "--deepep-mode", mode, *extra)


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    root = tmp_path_factory.mktemp("draft-a2a")
    mixtral = root / "mixtral"
    mixtral.mkdir()
    # the target's context length, so the draft ModelConfig's context check passes
    # (configs/model_config.py:1296-1316)
    (mixtral / "config.json").write_text(json.dumps({**dc.MIXTRAL,
                                                     "max_position_embeddings": 40960}))
    return {"target": sglang_stubs.write_moe_model_dir(root / "target"),
            "qwen3": sglang_stubs.write_moe_model_dir(root / "qwen3-draft"),
            "mixtral": mixtral,
            "llama": sglang_stubs.write_model_dir(root / "llama-draft"),
            # s60d: NextN drafts (tests.oracle.sglang_draft_build.NEXTN_DRAFTS)
            **sdb.write_nextn_drafts(root, ("deepseek_v3", "glm4_moe", "bailing_hybrid",
                                              "ernie4_5_moe", "qwen3_next", "qwen3_5_moe",
                                              "qwen3_5_moe_text", "intern_s2_preview",
                                              "qwen3_5", "hy_v4", "gigachat3_5",
                                              "gigachat3_5_dense", "step3p5",
                                              "step3p5_dense", "step3p7", "exaone_moe",
                                              "exaone_moe_dense", "interns2_mobius",
                                              "glm5_next", "qwen4_exp",
                                              "longcat_flash", "mimo_v2_flash",
                                              "deepseek_v4", "deepseek_v41",
                                              "deepseek_v41_text"))}


CASES = (  # (draft, backend, mode, extra)
    ("qwen3", "mooncake", "auto", ()),
    ("qwen3", "nixl", "normal", ()),
    ("qwen3", "mooncake", "low_latency", ()),
    ("mixtral", "nixl", "auto", ()),
    ("llama", "mooncake", "auto", ()),  # a dense draft: no dispatcher
    ("qwen3", "mooncake", "auto", ("--enable-multi-layer-eagle",)),
    # s60d: NextN drafts, their one layer sparse (first_k_dense_replace 1 in each config)
    ("deepseek_v3", "mooncake", "auto", ()),
    ("deepseek_v3", "nixl", "low_latency", ()),
    ("glm4_moe", "nixl", "normal", ()),
    ("bailing_hybrid", "mooncake", "normal", ()),
    # s62d: a MoE target's ERNIE MTP draft, its block dense: no dispatcher, it builds
    ("ernie4_5_moe", "mooncake", "auto", ()),
    ("qwen3_next", "mooncake", "auto", ()),  # its MTP layer sparse: the dispatcher raises
    # s63d: Qwen3.5 MTP drafts, MoE by the config's model type; a dense Qwen3.5 builds
    ("qwen3_5_moe", "mooncake", "auto", ()),
    ("qwen3_5_moe_text", "nixl", "normal", ()),
    ("intern_s2_preview", "mooncake", "auto", ()),
    ("qwen3_5", "mooncake", "auto", ()),
    # s63d: the draft's pplx dispatcher in a mode that enables normal dispatch
    ("qwen3", "pplx", "normal", ()),
    ("qwen3_5_moe", "pplx", "auto", ()),
    ("qwen3_5_moe_text", "pplx", "low_latency", ()),
    ("qwen3_5", "pplx", "auto", ()),
    ("hy_v4", "mooncake", "normal", ()),  # s63d: HY-V4's NextN MoE
    ("gigachat3_5", "nixl", "auto", ()),  # GigaChat-3.5 with nextn_is_sparse
    ("gigachat3_5_dense", "nixl", "auto", ()),  # without: a dense MLP, it builds
    # s66d: Step-3.5 / 3.7 MTP drafts, sparse where moe_layers_enum names layer 45; Exaone-MoE
    # where is_moe_layer[0]; InternS2-Mobius always
    ("step3p5", "mooncake", "auto", ()),
    ("step3p5_dense", "mooncake", "auto", ()),
    ("step3p7", "pplx", "normal", ()),
    ("exaone_moe", "nixl", "auto", ()),
    ("exaone_moe_dense", "nixl", "auto", ()),
    ("interns2_mobius", "mooncake", "normal", ()),
    ("glm5_next", "nixl", "normal", ()),  # GLM-5-Next's NextN layer, always sparse
    # s67d: Qwen4-Exp's MTP layer, always sparse (a qwen4_exp_text config)
    ("qwen4_exp", "mooncake", "auto", ()),
    ("qwen4_exp", "pplx", "low_latency", ()),
    ("longcat_flash", "mooncake", "auto", ()),  # LongCat-Flash's NextN layer: dense, builds
    ("mimo_v2_flash", "mooncake", "auto", ()),  # s68d: MiMo-V2-Flash's MTP layer: dense too
    # s68n: DeepSeek-V4's NextN layer, always a DeepseekV2MoE block
    ("deepseek_v4", "mooncake", "auto", ()),
    ("deepseek_v4", "nixl", "low_latency", ()),
    ("deepseek_v4", "pplx", "normal", ()),
    # s69d: DeepSeek-V4.1 checkpoints written DeepseekV41ForCausalLM (flat, nested): renamed
    # to V4 by its config class, so V4's NextN draft
    ("deepseek_v41", "mooncake", "auto", ()),
    ("deepseek_v41_text", "pplx", "normal", ()),
    ("deepseek_v41", "mooncake", "low_latency", ()),
)


def _answers(dirs: dict[str, Path], case: tuple[str, str, str, tuple[str, ...]]
             ) -> tuple[str | None, tuple[int, str]]:
    name, backend, mode, extra = case
    argv = _argv(dirs[name], backend, mode, *extra)
    with dc._own_build_only():  # resolution alone: which worker SGLang picks
        r = so.resolve(argv, model=str(dirs["target"]))
    context = isinstance(r, so.Resolved) and sdb.enters_context(r.record)
    block = _draft_builder(getattr(r, "record", None), dirs[name], context)
    theirs = dc.sglang(dirs["target"], argv, True, block=block, shared_build=False)
    return theirs, dc.graphfit(dirs["target"], argv, True)


def test_draft_dispatcher_lines_agree(dirs: dict[str, Path]) -> None:
    wrong, refused = [], []
    for case in CASES:
        theirs, (code, said) = _answers(dirs, case)
        refused.append(theirs is not None)
        site = next((s for s in SITES if theirs and s in theirs), None)
        if (theirs is None) != (code == 0) or (site and site.split(":")[0] not in said):
            wrong.append(f"{case}: SGLang {theirs and theirs[:160]}; graphfit {code} {said}")
    for index in (0, 2, 5):  # the shared step (sglang_oracle.resolve) answers alike
        name, backend, mode, extra = CASES[index]
        shared = so.resolve(_argv(dirs[name], backend, mode, *extra), model=str(dirs["target"]))
        if isinstance(shared, so.Rejected) != refused[index]:
            wrong.append(f"{CASES[index]}: shared step {getattr(shared, 'text', 'starts')}")
    assert not wrong, "\n".join(wrong)
    # not vacuous: the Qwen3-MoE draft raises in auto / normal, Mixtral's too, the NextN
    # drafts' too (s60d); the rest build
    assert refused == [True, True, False, True, False, False, True, False, True, True, False,
                       True, True, True, True, False, True, True, False, False, True, True,
                       False, True, False, True, True, False, True, True, True, False,
                       False, False, True, False, True, True, True, False], refused
