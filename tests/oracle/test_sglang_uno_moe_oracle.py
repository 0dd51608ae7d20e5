"""SGLang 0.5.23's UNO on a MoE model against graphfit.planner.engines.sglang_uno_moe and
graphfit.inputs.sglang_uno_moe, with SGLang's own code on CPU.

* The adapter rule: SGLang's `LoRAConfig` reads the adapter_config.json, `LoRAManager.
  init_lora_shapes` infers the targets as UNO leaves them (target_modules None, uno_lora.py:
  49-51; lora_manager.py:800-877, the shorthands through `auto_detect_lora_target_modules`)
  and `UnoCublasLoRABackend.validate_lora_targets` (uno_cublas_backend.py:79-120) accepts or
  refuses them over a base model's module tree; graphfit's pasted-line reading must accept
  and refuse the same adapters. Glue: the base model is a module tree of SGLang's own layer
  classes (bare instances, no weights) shaped as SGLang builds a Qwen3-MoE (attention
  projections, a router `gate`, `experts` a FusedMoE) or a dense Qwen3 (gate_up_proj /
  down_proj), for the model directory whose config.json graphfit reads.
* No MoE LoRA buffers: SGLang's `ModelRunner.maybe_init_lora_manager` run for UNO never
  reaches `init_lora_cuda_graph_moe_buffers` (model_runner.py:831-836), which multi-LoRA's
  `init_lora_manager` does call (:1450-1468, the planted contrast); and a whole UNO line on the
  MoE model plans the runners, graphs and LoRA state SGLang's own UnoDecodeCudaGraphRunner
  builds, with no MoE LoRA buffer on either side.
"""

from __future__ import annotations

import functools
import json
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit import ConfigError  # noqa: E402
from graphfit.inputs import sglang_uno_moe  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs as ss  # noqa: E402
from tests.oracle import sglang_uno_compare as uc  # noqa: E402

_ROOT = tempfile.TemporaryDirectory(prefix="graphfit-uno-moe-")
MODELS = {"moe": str(ss.write_moe_model_dir(Path(_ROOT.name) / "moe")),
          "dense": str(ss.write_model_dir(Path(_ROOT.name) / "dense"))}
LINE = uc.uno("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3",
              "--max-running-requests", "24")


@functools.cache
def _resolved() -> so.Resolved:
    r = so.resolve(LINE, gpu_mem_gb=80)
    assert isinstance(r, so.Resolved)
    return r


def _base_model(moe: bool) -> Any:
    """SGLang's layer classes, bare (no weights), in the module tree SGLang builds."""
    import torch
    from sglang.srt.layers.linear import (
        MergedColumnParallelLinear,
        QKVParallelLinear,
        ReplicatedLinear,
        RowParallelLinear,
    )
    from sglang.srt.layers.moe.fused_moe_triton.layer import FusedMoE

    def bare(cls: type) -> Any:
        module = cls.__new__(cls)
        torch.nn.Module.__init__(module)
        return module

    layers = torch.nn.ModuleList()
    for _ in range(2):
        layer, attn, mlp = torch.nn.Module(), torch.nn.Module(), torch.nn.Module()
        attn.qkv_proj, attn.o_proj = bare(QKVParallelLinear), bare(RowParallelLinear)
        if moe:
            mlp.gate, mlp.experts = bare(ReplicatedLinear), bare(FusedMoE)
        else:
            mlp.gate_up_proj = bare(MergedColumnParallelLinear)
            mlp.down_proj = bare(RowParallelLinear)
        layer.self_attn, layer.mlp = attn, mlp
        layers.append(layer)
    root, inner = torch.nn.Module(), torch.nn.Module()
    inner.layers = layers
    root.model = inner
    return root


def sglang_verdict(adapter: str, moe: bool) -> str | None:
    """None when SGLang's LoRA manager accepts the UNO adapter on the model, else its error."""
    import torch

    with so.published(_resolved()):
        from sglang.srt.lora.backend.uno_cublas_backend import UnoCublasLoRABackend
        from sglang.srt.lora.lora_config import LoRAConfig
        from sglang.srt.lora.lora_manager import LoRAManager

        manager = object.__new__(LoRAManager)
        manager.base_model = _base_model(moe)
        manager.lora_refs = {uc.UNO_ID: types.SimpleNamespace(lora_name="__uno_draft__")}
        manager.lora_added_tokens_size = None
        manager.lora_backend = UnoCublasLoRABackend(2, torch.device("cpu"))
        try:
            manager.configs = {uc.UNO_ID: LoRAConfig(adapter)}
            LoRAManager.init_lora_shapes(manager, max_lora_rank=None, target_modules=None)
            manager.lora_backend.validate_lora_targets(
                base_model=manager.base_model, target_modules=manager.target_modules)
        except (ValueError, AttributeError, TypeError) as exc:
            return f"{type(exc).__name__}: {exc}"
    return None


def graphfit_verdict(adapter: str, moe: bool) -> str | None:
    values = {"speculative_algorithm": "UNO", "uno_lora_path": adapter,
              "model_path": MODELS["moe" if moe else "dense"]}
    try:
        sglang_uno_moe.line(values)
    except ConfigError as exc:
        return str(exc)
    return None


def _adapter(targets: object) -> str:
    path = Path(tempfile.mkdtemp(dir=_ROOT.name))
    (path / "adapter_config.json").write_text(json.dumps(
        {"target_modules": targets, "r": 8, "lora_alpha": 16}))
    return str(path)


def _agree(targets: object, moe: bool) -> None:
    adapter = _adapter(targets)
    theirs, ours = sglang_verdict(adapter, moe), graphfit_verdict(adapter, moe)
    assert (theirs is None) == (ours is None), (targets, moe, theirs, ours)
    if theirs is not None and "FusedMoE" in theirs:
        assert ours is not None and "uno_cublas_backend.py" in ours


LEAVES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "gate_up_proj",
          "down_proj", "w1", "w2", "lm_head")
EDGE = [(["q_proj", "k_proj", "v_proj", "o_proj"], True), (["gate_proj", "down_proj"], True),
        (["model.layers.0.mlp.up_proj", "mlp.down_proj"], True), (["gate_proj", "up_proj"], True),
        (["w1", "w2", "w3"], True), ("all-linear", True), ("all", True), ("all-linear", False),
        (["gate_proj", "up_proj", "down_proj"], False), ("attention", False)]


@pytest.mark.parametrize(("targets", "moe"), EDGE, ids=[f"{t}-{'moe' if m else 'dense'}"
                                                        for t, m in EDGE])
def test_uno_adapters_follow_sglang(targets: object, moe: bool) -> None:
    _agree(targets, moe)


@given(st.one_of(st.lists(st.tuples(st.sampled_from(("", "mlp.", "model.layers.1.self_attn.")),
                                    st.sampled_from(LEAVES)).map("".join), max_size=5),
                 st.sampled_from(("all", "all-linear", "lora"))), st.booleans())
def test_generated_uno_adapters_follow_sglang(targets: object, moe: bool) -> None:
    _agree(targets, moe)


def test_sglang_refuses_the_experts_themselves() -> None:
    """SGLang's refusal names the FusedMoE modules, never the router or attention."""
    found = sglang_verdict(_adapter(["gate_proj", "down_proj"]), True)
    assert found is not None and "experts (FusedMoE)" in found and "gate (" not in found


def test_uno_never_allocates_moe_lora_graph_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang's `maybe_init_lora_manager` for UNO returns after the UNO manager; the MoE LoRA
    graph buffers' allocator is reached only by multi-LoRA's `init_lora_manager`."""
    with so.published(_resolved()):
        from sglang.srt.model_executor import model_runner as mr_module
        from sglang.srt.speculative import uno_lora
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        calls: list[dict[str, Any]] = []
        monkeypatch.setattr(mr_module, "init_lora_cuda_graph_moe_buffers",
                            lambda **kw: calls.append(kw))
        monkeypatch.setattr(uno_lora, "init_uno_lora_manager", lambda mr: ("uno", "id"))
        runner = types.SimpleNamespace(spec_algorithm=SpeculativeAlgorithm.from_string("UNO"),
                                       is_draft_worker=False)
        mr_module.ModelRunner.maybe_init_lora_manager(runner)
        assert (runner.lora_manager, runner.uno_lora_id, calls) == ("uno", "id", [])
        # the contrast: multi-LoRA's manager does allocate them (the recorder works)
        monkeypatch.setattr(mr_module, "LoRAManager", lambda **kw: "multi")
        monkeypatch.setattr(mr_module, "cuda_graph_fully_disabled", lambda: False)
        runner = types.SimpleNamespace(model=None, model_config=types.SimpleNamespace(
            hf_config=None), load_config=None, dtype=None, server_args=None)
        mr_module.ModelRunner.init_lora_manager(runner)
        assert len(calls) == 1 and calls[0]["lora_manager"] == "multi"


def test_a_uno_line_on_a_moe_model_plans_sglangs_runners(tmp_path: Path) -> None:
    """A whole pasted UNO line on the MoE model with an attention-only adapter: graphfit's
    plan (with its note) against SGLang's own UnoDecodeCudaGraphRunner on that model."""
    adapter = _adapter(["q_proj", "k_proj", "v_proj", "o_proj"])
    argv = ("--speculative-algorithm", "UNO", "--uno-lora-path", adapter, *LINE[4:])
    sg = uc.sglang_on(argv, "H100", MODELS["moe"])
    gf, text = uc.pasted_on(argv, "H100", MODELS["moe"])
    assert gf.plan is not None and sg.runners is not None, (gf.rejected, sg.error)
    assert "no MoE LoRA graph buffers" in text
    config = json.loads((Path(MODELS["moe"]) / "config.json").read_text())
    diffs = uc.compare_runners(sg, gf, (config["hidden_size"], config["vocab_size"]))
    assert not diffs, diffs


def _live_and_pasted(targets: object, moe: bool, entry: str = "check_server_args") -> None:
    """The live check (`check_server_args` on SGLang's own ServerArgs for the line, as the
    plugin's hook gets them), or the library entry point an embedding engine developer calls
    (`from_sglang`, then `plan`), and the pasted line read the same adapter_config.json: both
    refuse with the same reason, or plan the same components (every buffer by name, shape
    and dtype); a refusal is SGLang's own (`sglang_verdict`)."""
    from graphfit import plan
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from graphfit.integrations import sglang as gs
    from graphfit.planner.core.errors import GraphfitError

    adapter, model = _adapter(targets), MODELS["moe" if moe else "dense"]
    argv = ("--speculative-algorithm", "UNO", "--uno-lora-path", adapter, *LINE[4:])
    r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB["H100"], model=model)
    assert isinstance(r, so.Resolved), r
    gf, _ = uc.pasted_on(argv, "H100", model)
    gb = GPU_MEMORY_GB["H100"]
    try:
        live, why = (gs.check_server_args(r.record, gpu_memory_gb=gb).plan
                     if entry == "check_server_args" else
                     plan(gs.from_sglang(r.record, environ={}, gpu_memory_gb=gb))), ""
    except GraphfitError as exc:
        live, why = None, str(exc)
    assert (gf.plan is None) == (live is None), (targets, moe, gf.rejected, why)
    assert (live is None) == (sglang_verdict(adapter, moe) is not None), (targets, moe, why)
    if gf.plan is None or live is None:
        assert gf.rejected is not None and why[:60] in gf.rejected, (gf.rejected, why)
        return
    assert {n: {(b.name, b.shape, b.dtype) for b in c.buffers}
            for n, c in live.components.items()} == {
        n: {(b.name, b.shape, b.dtype) for b in c.buffers}
        for n, c in gf.plan.components.items()}, (targets, moe)


@pytest.mark.parametrize(("targets", "moe"), EDGE, ids=[f"{t}-{'moe' if m else 'dense'}"
                                                        for t, m in EDGE])
def test_live_check_reads_the_adapter_as_the_pasted_line(targets: object, moe: bool) -> None:
    _live_and_pasted(targets, moe)


@pytest.mark.parametrize(("targets", "moe"), EDGE, ids=[f"{t}-{'moe' if m else 'dense'}"
                                                        for t, m in EDGE])
def test_library_entry_point_reads_the_adapter(targets: object, moe: bool) -> None:
    """`graphfit.integrations.sglang.from_sglang`: an engine developer's config of the
    server refuses the adapters SGLang's LoRA manager refuses, with the pasted line's
    reason."""
    _live_and_pasted(targets, moe, "from_sglang")


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(("", "mlp.")), st.sampled_from(LEAVES)).map("".join),
                max_size=5), st.booleans())
def test_generated_adapters_live_and_pasted_agree(targets: list[str], moe: bool) -> None:
    _live_and_pasted(targets, moe)
