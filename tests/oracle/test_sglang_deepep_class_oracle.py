"""graphfit == SGLang 0.5.23 on the DeepEP-class MoE's JIT-DeepGEMM assert for the model
classes built through `get_moe_impl_class` (layers/moe/ep_moe/layer.py:168-178, 352-365;
graphfit.planner.engines.sglang_deepep_class).

SGLang: its own resolution of the line (tests.oracle.sglang_oracle.resolve) on a small
Qwen3-MoE config.json, then, where that starts, the model's own MoE block
(`Qwen3MoeSparseMoeBlock`, models/qwen3_moe.py:235-280, which calls `get_moe_impl_class`)
built on the meta device under the published layout, with JIT DeepGEMM set as the line's
SGLANG_ENABLE_JIT_DEEPGEMM says (on: an SM 90 device with deep_gemm, the oracle's glue;
tests.oracle.sglang_minimax_target_oracle._deepep_glue, which also reports deep_ep
installed). graphfit: its CLI on the pasted line. Each line must be refused by both (with
SGLang's assert sentence where that is what SGLang raises) or started by both.
"""

from __future__ import annotations

import contextlib
import io
import random
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_minimax_target_oracle as mt  # noqa: E402
from tests.oracle import sglang_mooncake_build as mb  # noqa: E402
from tests.oracle import sglang_mtp_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

ASSERT = "mode requires deep_gemm"
UNQUANTIZED = "Unquantized DeepEP MoE requires DeepGEMM BF16"  # ep_moe/layer.py:135-147
# (what SGLang's build failure says, what graphfit's refusal must name)
NIXL = "Normal mode is not supported for Nixl EP yet."  # token_dispatcher/nixl.py:481-482
BUILD_ERRORS = ((ASSERT, ASSERT), (UNQUANTIZED, UNQUANTIZED),
                ("NotImplementedError:  @ layers/moe/token_dispatcher/mooncake.py:344",
                 "mooncake.py:343-344"),
                (f"NotImplementedError: {NIXL} @ layers/moe/token_dispatcher/nixl.py:482",
                 "nixl.py:481-482"))
A2AS = ("none", "deepep", "deepep", "deepep_v2", "mooncake", "mooncake")
MODES = ("auto", "auto", "low_latency", "normal")
QUANTS = (None, "fp8", "fp8")
RUNNERS = ("auto", "auto", "triton", "deep_gemm")


def _jit(jit: bool) -> list[tuple[object, str, object]]:
    """ENABLE_JIT_DEEPGEMM as the line sets it, for the resolution hooks that read it
    (serving_hook.py:481; the model build reads it through mt._deepep_glue)."""
    from sglang.srt.layers import deep_gemm_wrapper

    saved: list[tuple[object, str, object]] = [
        (deep_gemm_wrapper, "ENABLE_JIT_DEEPGEMM", deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM)]
    deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM = jit
    return saved


def _qwen3_block(config: Any, quant: Any) -> None:
    """Qwen3-MoE's own MoE block (models/qwen3_moe.py:235-280: get_moe_impl_class)."""
    import sglang.srt.models.qwen3_moe as q3

    q3.Qwen3MoeSparseMoeBlock(layer_id=0, config=config, quant_config=quant,
                              prefix="model.layers.0.mlp")


def _mixtral_block(config: Any, quant: Any) -> None:
    """Mixtral's own MoE block, a FusedMoE outside get_moe_impl_class (models/mixtral.py:
    60-110; its decoder layer's arguments, :203-212)."""
    from sglang.srt.models import mixtral

    mixtral.MixtralMoE(num_experts=config.num_local_experts,
                       top_k=config.num_experts_per_tok, hidden_size=config.hidden_size,
                       intermediate_size=config.intermediate_size, layer_id=0,
                       quant_config=quant, prefix="model.layers.0.block_sparse_moe")


@contextlib.contextmanager
def _own_build_only() -> Iterator[None]:
    """The oracle's shared Mooncake build step (tests.oracle.sglang_mooncake_build) left
    out of resolution, so that the model's own MoE block is what raises or builds."""
    saved = mb.failure
    mb.failure = lambda r: None  # type: ignore[assignment]
    try:
        yield
    finally:
        mb.failure = saved


def lora_check(record: Any) -> str | None:
    """SGLang's LoRA start-up checks (`check_lora_server_args`, arg_groups/lora_hook.py:33-237,
    run by check_server_args between the resolution and the model build; issue 23 s65d) on
    the resolved record: "check: ..." where they refuse, else None."""
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.lora_hook import check_lora_server_args
    try:
        check_lora_server_args(record)
    except (ValueError, AssertionError) as exc:
        return f"check: {type(exc).__name__}: {exc}"
    return None


def sglang(model: Path, argv: tuple[str, ...], jit: bool,
           block: Callable[[Any, Any], None] = _qwen3_block, shared_build: bool = True
           ) -> str | None:
    """SGLang's refusal (resolution, or the MoE block's build), None where it builds.
    `block`: builds the model's MoE block; `shared_build` False: only that block builds."""
    import torch

    with sglang_stubs.fake_cuda():
        saved = _jit(jit)
        try:
            with contextlib.nullcontext() if shared_build else _own_build_only():
                r = so.resolve(argv, model=str(model))
        finally:
            for mod, name, value in saved:
                setattr(mod, name, value)
    if isinstance(r, so.Rejected):
        # the oracle's shared Mooncake dispatcher build (tests.oracle.sglang_mooncake_build)
        where = "build" if r.text.endswith("(at model build)") else "resolution"
        return f"{where}: {r.text}"
    said = lora_check(r.record)
    if said:
        return said
    with so.sglang_stubs.stubbed(), so.published(r):
        from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
        from sglang.srt.model_loader.utils import set_default_torch_dtype
        from sglang.srt.runtime_context import get_parallel
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = get_config(str(model), trust_remote_code=False)
        tp = int(argv[argv.index("--tp-size") + 1])
        group = types.SimpleNamespace(world_size=tp, rank_in_group=0, cpu_group=None,
                                      device_group=None)
        saved = mt._deepep_glue(jit) + _pplx_glue()
        initialize_dp_attention_flags(None)
        try:
            ep, moe_tp = get_parallel().moe_ep_size, get_parallel().moe_tp_size
            ep_group = group if ep == tp else types.SimpleNamespace(
                world_size=ep, rank_in_group=0, cpu_group=None)
            moe_tp_group = group if moe_tp == tp else types.SimpleNamespace(
                world_size=moe_tp, rank_in_group=0, cpu_group=None)
            with mb.glue(), mb.nixl_glue(ep), \
                    get_parallel().override(tp_rank=0, attn_tp_rank=0, moe_ep_rank=0,
                                         moe_tp_rank=0, tp_group=group,
                                         moe_tp_group=moe_tp_group, moe_ep_group=ep_group), \
                    set_default_torch_dtype(_model_dtype(r, model)), torch.device("meta"):
                quant = mt._quant_config(r, str(model)) if "--quantization" in argv else None
                block(config, quant)
        except (AssertionError, ValueError, TypeError, NotImplementedError,
                AttributeError) as exc:  # AttributeError: Step3.5 (s70t)
            return f"build: {type(exc).__name__}: {exc} @ {mt._site(exc)}"
        finally:
            for mod, name, value in saved:
                setattr(mod, name, value)
    return None


def _pplx_glue() -> list[tuple[object, str, object]]:
    """pplx-kernels reported installed (token_dispatcher/pplx.py:31-37): the dispatcher's
    constructor only checks the flag (:203-210); its AllToAll is made on the first dispatch,
    never at model build."""
    from sglang.srt.layers.moe.token_dispatcher import pplx

    saved: list[tuple[object, str, object]] = [(pplx, "use_pplx", pplx.use_pplx)]
    pplx.use_pplx = True
    return saved


def _model_dtype(r: so.Resolved, model: Path) -> object:
    """The dtype the model loader builds the model under (model_loader/loader.py:838:
    `set_default_torch_dtype(model_config.dtype)`, SGLang's own ModelConfig of the line):
    the experts' weights take it, and the unquantized assert reads it (ep_moe/layer.py:137)."""
    from sglang.srt.configs.model_config import ModelConfig

    return ModelConfig.from_server_args(r.record, model_path=str(model)).dtype


def graphfit(model: Path, argv: tuple[str, ...], jit: bool, gpu: str = "80"
             ) -> tuple[int, str]:
    """(exit status, the last `error:` line) of graphfit's CLI on the pasted line (`gpu`:
    --gpu-memory-gb, a figure or a GPU name)."""
    from graphfit.cli.application import main

    env = () if jit else ("SGLANG_ENABLE_JIT_DEEPGEMM=0",)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", gpu, "--", *env, "sglang", "serve",
                  "--model-path", str(model), *argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def build_answers(model: Path, argv: tuple[str, ...], block: Any
                  ) -> tuple[str | None, int, str]:
    """(SGLang's refusal with its "build: " mark dropped or "Rejected: " put before a start-up
    refusal, None where it starts; graphfit's exit code and words) for one line with JIT on
    (the dense-TP and sparse-MoE build measures' answers)."""
    theirs = sglang(model, argv, True, block=block)
    code, said = graphfit(model, argv, True)
    if theirs is not None and theirs.startswith("build: "):
        theirs = theirs.removeprefix("build: ")
    elif theirs is not None:
        theirs = f"Rejected: {theirs}"
    return theirs, code, said


def line(rng: random.Random) -> tuple[tuple[str, ...], bool]:
    """One drawn line and whether JIT DeepGEMM is on."""
    tp = rng.choice((2, 4))
    out = ["--tp-size", str(tp), "--ep-size", str(tp), "--moe-a2a-backend", rng.choice(A2AS),
           "--deepep-mode", rng.choice(MODES), "--moe-runner-backend", rng.choice(RUNNERS)]
    quant = rng.choice(QUANTS)
    if quant:
        out += ["--quantization", quant]
    if rng.random() < 0.25:  # the experts' dtype (the unquantized assert needs BF16)
        out += ["--dtype", "float16"]
    return tuple(out), rng.random() < 0.3


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return sglang_stubs.write_moe_model_dir(tmp_path_factory.mktemp("deepep") / "moe")


def _agree(model: Path, argv: tuple[str, ...], jit: bool, theirs: str | None = "",
           **build: Any) -> str | None:
    """None where both sides agree, else what differs (`build`: sglang's block options;
    `theirs`: SGLang's answer where already known, "" to ask it)."""
    theirs = sglang(model, argv, jit, **build) if theirs == "" else theirs
    ours = graphfit(model, argv, jit)
    for said, named in BUILD_ERRORS:
        if theirs is not None and theirs.startswith("build:") and said in theirs:
            if ours[0] == 0 or named not in ours[1]:
                return f"SGLang {theirs[:120]}; graphfit exit {ours[0]} {ours[1][:120]}"
            return None
    if (ours[0] != 0) != (theirs is not None):
        return f"SGLang {theirs and theirs[:120]}; graphfit exit {ours[0]} {ours[1][:120]}"
    if ours[0] != 0 and any(named in ours[1] for _, named in BUILD_ERRORS):
        return f"graphfit names a build error where SGLang says {theirs and theirs[:120]}"
    return None


KNOWN = (  # the rule's clauses, each way (jit False: SGLANG_ENABLE_JIT_DEEPGEMM=0)
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--quantization", "fp8"), True),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--deepep-mode", "low_latency", "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--deepep-mode", "normal", "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep_v2",
      "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
      "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
      "--deepep-mode", "low_latency", "--quantization", "fp8"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
      "--deepep-mode", "low_latency", "--quantization", "fp8"), True),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake"), True),
)
# the unquantized assert (ep_moe/layer.py:135-147), each clause both ways
UNQUANTIZED_LINES = (
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--moe-runner-backend", "deep_gemm"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--moe-runner-backend", "deep_gemm"), True),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--moe-runner-backend", "deep_gemm", "--dtype", "float16"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--moe-runner-backend", "triton"), False),
    # (a LoRA runner beside deepep is refused before the build by check_server_args,
    # arg_groups/lora_hook.py:200-224: tests/oracle/test_sglang_lora_runner_oracle.py, s65d)
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
      "--deepep-mode", "low_latency", "--moe-runner-backend", "deep_gemm"), False),
    # pplx turns runner auto into deep_gemm (arg_groups/moe_hook.py:603-609)
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "pplx", "--attn-dp-size", "2",
      "--chunked-prefill-size", "64", "--cuda-graph-max-bs-decode", "32"), False),
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "pplx", "--attn-dp-size", "2",
      "--chunked-prefill-size", "64", "--cuda-graph-max-bs-decode", "32"), True),
)


def test_known_lines_agree(model: Path) -> None:
    wrong = [f"{' '.join(a)} jit={j}: {d}" for a, j in KNOWN if (d := _agree(model, a, j))]
    assert not wrong, "\n".join(wrong)
    # the rule is exercised: SGLang raises the assert on the first line
    first = sglang(model, *KNOWN[0])
    assert first is not None and ASSERT in first, first


def test_drawn_lines_agree(model: Path) -> None:
    rng = random.Random(45)
    wrong = []
    for _ in range(16):
        argv, jit = line(rng)
        said = _agree(model, argv, jit)
        if said:
            wrong.append(f"{' '.join(argv)} jit={jit}: {said}")
    assert not wrong, "\n".join(wrong)


def test_unquantized_assert_lines_agree(model: Path) -> None:
    wrong = [f"{' '.join(a)} jit={j}: {d}" for a, j in UNQUANTIZED_LINES
             if (d := _agree(model, a, j))]
    assert not wrong, "\n".join(wrong)
    # the assert is reached (under the loader's BF16 default dtype), on deepep and pplx
    for argv, jit in (UNQUANTIZED_LINES[0], UNQUANTIZED_LINES[-2]):
        said = sglang(model, argv, jit)
        assert said is not None and UNQUANTIZED in said, said


MIXTRAL = {  # HF's MixtralConfig: a MoE class built on FusedMoE, outside get_moe_impl_class
    "architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 1024,
    "intermediate_size": 2048, "num_local_experts": 8, "num_experts_per_tok": 2,
    "num_attention_heads": 16, "num_key_value_heads": 4, "num_hidden_layers": 4,
    "vocab_size": 32000, "max_position_embeddings": 32768, "rms_norm_eps": 1e-5,
    "rope_theta": 1000000.0, "torch_dtype": "bfloat16", "hidden_act": "silu",
    "tie_word_embeddings": False}


def test_mooncake_outside_deepep_classes(tmp_path: Path) -> None:
    """Mooncake's dispatcher raise holds for every FusedMoE model: Mixtral's own block, built
    without the oracle's shared Mooncake step, raises in auto / normal mode and builds in
    low_latency; graphfit refuses / plans the same lines."""
    import json

    so.oracle()
    (tmp_path / "config.json").write_text(json.dumps(MIXTRAL))
    raised = []
    for mode in ("auto", "normal", "low_latency"):
        argv = ("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
                "--deepep-mode", mode)
        said = _agree(tmp_path, argv, True, block=_mixtral_block, shared_build=False)
        assert said is None, f"{mode}: {said}"
        raised.append(sglang(tmp_path, argv, True, block=_mixtral_block, shared_build=False))
    assert all(r is not None and "mooncake.py" in r for r in raised[:2]), raised
    assert raised[2] is None, raised


@contextlib.contextmanager
def _rocm() -> Iterator[None]:
    """SGLang on an MI300X: the platform facts its resolution hooks read
    (tests.oracle.sglang_mtp_oracle._platform) and ep_moe/layer.py's import-time `_is_hip`
    (:53), True on a ROCm host; `_use_aiter` (:56) stays off (SGLANG_USE_AITER unset).
    Run a line on CUDA first (the test's control does): what SGLang first computes and
    caches under this override would otherwise say ROCm to every later test in the process
    (seen: the a2a oracle's decode ladder capped at 160 after a cold ROCm resolution)."""
    with sglang_stubs.imports():
        from sglang.srt.layers.moe.ep_moe import layer

    saved = layer._is_hip
    with mo._restored_environ(), mo._platform("MI300X"):
        layer._is_hip = True
        try:
            yield
        finally:
            layer._is_hip = saved


# on ROCm JIT DeepGEMM is off whatever SGLANG_ENABLE_JIT_DEEPGEMM says
# (deep_gemm_wrapper/configurer.py:32-36): SGLang runs with it off, graphfit's line sets it 0
ROCM_LINES = (
    ("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep", "--quantization",
     "fp8"),
    ("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "deepep",
     "--moe-runner-backend", "deep_gemm"),
    ("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake", "--deepep-mode",
     "low_latency", "--quantization", "fp8"),
    ("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "mooncake",
     "--quantization", "fp8"),
)


def test_rocm_lines_with_jit_off_agree(model: Path) -> None:
    """HIP skips both DeepEP asserts (ep_moe/layer.py:142, 172): the same lines SGLang
    refuses on CUDA with JIT DeepGEMM off (KNOWN, UNQUANTIZED_LINES) build on an MI300X."""
    wrong = []
    answers = []
    for argv in ROCM_LINES:
        # the control, first (see _rocm): on CUDA SGLang refuses each of them with JIT off
        assert sglang(model, argv, False) is not None, argv
        with _rocm():
            theirs = sglang(model, argv, False)
        ours = graphfit(model, argv, False, gpu="MI300X")
        answers.append(theirs)
        if (theirs is None) != (ours[0] == 0):
            wrong.append(f"{' '.join(argv)}: SGLang {theirs and theirs[:120]}; "
                         f"graphfit exit {ours[0]} {ours[1][:120]}")
    assert not wrong, "\n".join(wrong)
    assert answers[:3] == [None, None, None], answers  # the asserts are skipped on ROCm
    assert answers[3] is not None and "mooncake.py" in answers[3], answers[3]


# s54e: NixlEP's dispatcher (token_dispatcher/nixl.py:476-482), for a class built through
# get_moe_impl_class (Qwen3-MoE) and one outside it (Mixtral); each mode, and the quantized
# low-latency assert nixl shares with deepep (ep_moe/layer.py:168-178)
NIXL_LINES = tuple(
    (("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", "nixl", "--deepep-mode", mode,
      *quant), jit)
    for mode, quant, jit in (("auto", (), True), ("normal", (), True), ("low_latency", (), True),
                             ("auto", ("--quantization", "fp8"), False),
                             ("low_latency", ("--quantization", "fp8"), False),
                             ("low_latency", ("--quantization", "fp8"), True)))


def test_nixl_dispatcher_lines_agree(model: Path, tmp_path: Path) -> None:
    """Each model's own MoE block, built without the oracle's shared dispatcher step, raises
    NixlEP's sentence in auto / normal mode and builds in low_latency (or meets the DeepEP
    assert with JIT DeepGEMM off); graphfit refuses / plans the same lines, and the shared
    step (sglang_mooncake_build.failure) answers as the block does."""
    import json

    (tmp_path / "config.json").write_text(json.dumps(MIXTRAL))
    wrong, answers = [], []
    lines = [(model, _qwen3_block, *x) for x in NIXL_LINES]
    lines += [(tmp_path, _mixtral_block, *NIXL_LINES[i]) for i in (0, 4)]
    for where, block, argv, jit in lines:
        own = sglang(where, argv, jit, block=block, shared_build=False)
        answers.append(own)
        said = _agree(where, argv, jit, own)
        if said:
            wrong.append(f"{block.__name__} {' '.join(argv)} jit={jit}: {said}")
    for index in (0, 2):  # the shared step (resolution, then its dispatcher) answers alike
        r = so.resolve(NIXL_LINES[index][0], model=str(model))
        shared = r.text if isinstance(r, so.Rejected) else None
        if (shared and NIXL in shared) != (answers[index] and NIXL in answers[index]):
            wrong.append(f"shared step {shared} where the block says {answers[index]}")
    assert not wrong, "\n".join(wrong)
    # not vacuous. Qwen3-MoE: auto / normal / quantized auto raise NixlEP's sentence, the
    # quantized low_latency line with JIT off meets DeepEPMoE's assert, the rest build;
    # Mixtral: auto raises, and its FusedMoE has no such assert (quantized low_latency builds)
    assert all(a is not None and NIXL in a for a in (*answers[:2], answers[3], answers[6]))
    assert answers[4] is not None and ASSERT in answers[4], answers[4]
    assert (answers[2], answers[5], answers[7]) == (None, None, None), answers
