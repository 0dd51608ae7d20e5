"""The live check's reading of what a running SGLang reads beside its ServerArgs
(graphfit.inputs.sglang_live, graphfit.integrations.sglang.live_overrides), without SGLang's
sources: a ServerArgs as SGLang resolves it for these lines (the block / gamma resolved into
speculative_num_draft_tokens, speculative_hook.py:388-423, 807-850) against the pasted line
with the same `VAR=value` prefix, over generated environments and draft configs.

(tests/oracle/test_sglang_live_equivalence.py does the same on SGLang's own ServerArgs.)"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import types
from functools import cache
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import EngineConfig, plan
from graphfit.inputs.sglang_live import config_settings
from graphfit.integrations import sglang as gs
from graphfit.planner.core.errors import GraphfitError
from graphfit.planner.plan import Plan
from tests.helpers import run_cli
from tests.inputs.test_sglang_uno_moe_inputs import DENSE, MOE

VARIABLES = ("SGLANG_DSPARK_FOLDED_PROPOSAL", "SGLANG_DSPARK_USE_GREEDY_DRAFT",
             "SGLANG_OPT_DSV41_DSPARK_MID_FOLD", "SGLANG_DFLASH_EAGER_DRAFT_SAMPLER",
             "SGLANG_RAGGED_VERIFY_MODE")
OPTIONS = ("dspark_proposal", "dspark_mid_fold", "ragged_verify_mode", "dflash_eager_sampler",
           "dflash_lilicorr_top_k", "dflash_lilicorr_head", "dspark_samples_anchor",
           "draft_hidden_size", "speculative_num_draft_tokens", "hidden_size", "vocab_size")
BASE = {"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "vocab_size": 1000,
        "torch_dtype": "bfloat16", "num_attention_heads": 4, "num_hidden_layers": 2}
LILICORR = {"lilicorr_num_layers": 1, "lilicorr_num_heads": 4, "lilicorr_mlp_ratio": 2.0,
            "lilicorr_factor_dim": 8, "lilicorr_vector_eps": 1e-6, "lilicorr_logit_scale": 1.0}


@cache
def _root() -> Path:
    return Path(tempfile.mkdtemp(prefix="graphfit-live-inputs-"))


def model_dir(config: dict[str, Any]) -> str:
    """A model directory holding `config` (named by its content)."""
    text = json.dumps(config, sort_keys=True)
    path = _root() / hashlib.sha256(text.encode()).hexdigest()[:16]
    if not path.exists():
        path.mkdir()
        (path / "config.json").write_text(text)
    return str(path)


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, str], list[str], dict[str, Any]]:
    """(environment, the line's flags, the ServerArgs SGLang resolves from them)."""
    env = {name: draw(st.sampled_from(("1", "true", "0", "No", "on") if "RAGGED" not in name
                                      else ("static", "compact")))
           for name in draw(st.lists(st.sampled_from(VARIABLES), max_size=5, unique=True))}
    s = draw(st.integers(1, 64))
    if draw(st.booleans()):  # DFLASH: a plain or a LiLiCorr draft
        trained, block = draw(st.integers(2, 10)), draw(st.integers(2, 10))
        draft: dict[str, Any] = {**BASE, "block_size": trained}
        if draw(st.booleans()):
            draft["architectures"] = ["LiLiCorrDraftModel"]
            draft["dflash_config"] = {**LILICORR, "lilicorr_candidate_topk": draw(
                st.sampled_from((1, 4, 16))), "lilicorr_hidden_size": draw(
                st.sampled_from((0, 32, 64, 30)))}
        flags = ["--speculative-algorithm", "DFLASH", "--speculative-num-draft-tokens",
                 str(block)]
        args = {"speculative_algorithm": "DFLASH", "speculative_num_draft_tokens": block}
    else:  # DSPARK: gamma on the line or in the draft, sample_from_anchor either way
        gamma = draw(st.integers(1, 8))
        draft = {**BASE, "dspark_block_size": gamma,
                 "sample_from_anchor": draw(st.booleans())}
        given_gamma = draw(st.booleans())
        flags = ["--speculative-algorithm", "DSPARK", *(
            ["--speculative-dspark-block-size", str(gamma)] if given_gamma else [])]
        args = {"speculative_algorithm": "DSPARK", "speculative_num_draft_tokens": gamma + 1,
                "speculative_dspark_block_size": gamma if given_gamma else None}
    model, path = model_dir(BASE), model_dir(draft)
    flags = ["--model-path", model, "--max-running-requests", str(s), *flags,
             "--speculative-draft-model-path", path]
    return env, flags, {**args, "model_path": model, "max_running_requests": s,
                        "speculative_draft_model_path": path, "tp_size": 1,
                        "json_model_override_args": "{}"}


def _pasted(env: dict[str, str], flags: list[str]) -> Plan | None:
    code, out, _ = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--",
                            *(f"{k}={v}" for k, v in env.items()), "python", "-m",
                            "sglang.launch_server", *flags])
    return plan(EngineConfig.from_dict(json.loads(out)["config"])) if code == 0 else None


def _live(env: dict[str, str], args: dict[str, Any]) -> Plan | None:
    with mock.patch.dict(os.environ, env):
        for name in VARIABLES:
            if name not in env:
                os.environ.pop(name, None)
        try:
            return gs.check_server_args(types.SimpleNamespace(**args),
                                        gpu_memory_gb=80).plan
        except GraphfitError:
            return None


@settings(max_examples=30, deadline=None)
@given(cases())
def test_live_path_plans_what_the_pasted_line_plans(
        case: tuple[dict[str, str], list[str], dict[str, Any]]) -> None:
    """Both refuse together, or plan the same draft component (every buffer by name, shape
    and dtype: the sampler SGLang's environment leaves, the LiLiCorr head's weight-sized
    buffers) and the same environment / draft-config options."""
    env, flags, args = case
    pasted, live = _pasted(env, flags), _live(env, args)
    assert (pasted is None) == (live is None), (env, flags, pasted, live)
    if pasted is None or live is None:
        return
    for name in ("dflash_draft", "dspark_draft"):
        ours = {(b.name, b.shape, b.dtype) for b in live.components.get(name, ()).buffers} \
            if name in live.components else set()
        theirs = {(b.name, b.shape, b.dtype) for b in pasted.components[name].buffers} \
            if name in pasted.components else set()
        assert ours == theirs, (env, flags, sorted(ours ^ theirs)[:4])
    for key in OPTIONS:
        assert getattr(live.config, key) == getattr(pasted.config, key), (key, env, flags)


def test_config_settings_reads_only_what_server_args_cannot_carry(tmp_path: Path) -> None:
    """The block SGLang resolved stays the ServerArgs' (a raw one without it gets the
    draft's); a hub id reads nothing; a LiLiCorr draft gives its head kind and geometry."""
    draft = model_dir({**BASE, "block_size": 6, "architectures": ["LiLiCorrDraftModel"],
                       "dflash_config": {**LILICORR, "lilicorr_candidate_topk": 4,
                                         "lilicorr_hidden_size": 32}})
    # a 4-layer target: beside a 2-layer target SGLang's target runner refuses the
    # 2-layer draft (graphfit.inputs.sglang_dflash_layers)
    args = {"model_path": model_dir({**BASE, "num_hidden_layers": 4}),
            "speculative_algorithm": "DFLASH",
            "speculative_draft_model_path": draft, "speculative_num_draft_tokens": 4}
    found = config_settings(args)
    assert found["dflash_lilicorr_top_k"] == 4 and found["dflash_lilicorr_head"] == (32, 4, 8)
    assert (found["hidden_size"], found["vocab_size"], found["draft_hidden_size"]) == (
        64, 1000, 64)
    assert "speculative_num_draft_tokens" not in found
    raw = config_settings({**args, "speculative_num_draft_tokens": None})
    assert raw["speculative_num_draft_tokens"] == 6
    assert config_settings({"model_path": "org/hub-id", "speculative_algorithm": "DFLASH",
                            "speculative_draft_model_path": "org/draft",
                            "speculative_num_draft_tokens": 4}) == {}


# UNO on a MoE model: the adapter's adapter_config.json at --uno-lora-path
# (graphfit.inputs.sglang_uno_moe), read by the live path as by a pasted line
UNO_TARGETS = ("q_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "gate_up_proj",
               "model.layers.0.mlp.down_proj", "w1", "w2")


@st.composite
def uno_cases(draw: st.DrawFn) -> tuple[list[str], dict[str, Any]]:
    """(an UNO line's flags, its ServerArgs) on a MoE or a dense model whose adapter names a
    generated list of targets, a shorthand SGLang knows or one it does not, or has no
    adapter_config.json at all."""
    model = model_dir(MOE if draw(st.booleans()) else DENSE)
    targets: object = draw(st.one_of(
        st.lists(st.sampled_from(UNO_TARGETS), max_size=5),
        st.sampled_from(("all", "all-linear", "attention")), st.none()))
    adapter = _root() / f"adapter-{hashlib.sha256(json.dumps(targets).encode()).hexdigest()[:12]}"
    if not adapter.exists():
        adapter.mkdir()
        if targets is not None:
            (adapter / "adapter_config.json").write_text(json.dumps(
                {"target_modules": targets, "r": 8, "lora_alpha": 16}))
    s = draw(st.integers(1, 32))
    flags = ["--model-path", model, "--speculative-algorithm", "UNO", "--uno-lora-path",
             str(adapter), "--speculative-num-draft-tokens", "4", "--attention-backend", "fa3",
             "--max-running-requests", str(s)]
    return flags, {"model_path": model, "speculative_algorithm": "UNO",
                   "uno_lora_path": str(adapter), "speculative_num_draft_tokens": 4,
                   "attention_backend": "fa3", "max_running_requests": s, "tp_size": 1,
                   "json_model_override_args": "{}"}


@settings(max_examples=12, deadline=None)
@given(uno_cases())
def test_live_uno_reads_the_adapter_as_the_pasted_line(
        case: tuple[list[str], dict[str, Any]]) -> None:
    """Live and pasted refuse the same UNO adapters (one on a MoE model's experts, a target
    form SGLang does not know) with the same reason, or plan the same components."""
    flags, args = case
    code, out, err = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--", "python", "-m",
                              "sglang.launch_server", *flags])
    try:
        live: Plan | None = gs.check_server_args(types.SimpleNamespace(**args),
                                                 gpu_memory_gb=80).plan
        why = ""
    except GraphfitError as exc:
        live, why = None, str(exc)
    assert (code == 0) == (live is not None), (flags, err, why)
    if live is None:
        error = next(ln for ln in err.splitlines() if ln.startswith("error:"))
        assert why[:60] in error, (error, why)
        return
    pasted = plan(EngineConfig.from_dict(json.loads(out)["config"]))
    assert {n: {(b.name, b.shape, b.dtype) for b in c.buffers}
            for n, c in live.components.items()} == {
        n: {(b.name, b.shape, b.dtype) for b in c.buffers}
        for n, c in pasted.components.items()}, flags


def test_live_path_marks_a_dense_models_backend() -> None:
    """A live all-to-all backend on a dense model: `dense_model`, as a pasted line reads it
    (graphfit.inputs.sglang_a2a; issue 23 s68m); a MoE model or no backend: nothing."""
    for model, backend, dense in ((DENSE, "deepep", True), (MOE, "deepep", False),
                                  (DENSE, "none", False)):
        found = config_settings({"model_path": model_dir(model), "moe_a2a_backend": backend})
        assert found.get("dense_model", False) is dense, (model, backend)
