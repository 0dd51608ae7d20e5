"""A pasted SGLang UNO line (graphfit.inputs.sglang_uno): read into SpecMethod.UNO and
planned, or refused with one `error:` line naming SGLang's reason (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import run_cli

LINE = ["python", "-m", "sglang.launch_server", "--model-path", "m",
        "--speculative-algorithm", "UNO"]


def _plan(*extra: str) -> tuple[int, str, str]:
    return run_cli(["plan", "--json", "--", *LINE, *extra])


def test_linear_line_is_planned() -> None:
    code, out, err = _plan("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4",
                           "--attention-backend", "fa3", "--max-running-requests", "20")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["spec_method"] == "uno"
    assert doc["config"]["max_num_seqs"] == 20
    assert "uno-lora-path" not in err  # read, not "ignored"


def test_tree_line_with_split_backends_is_planned() -> None:
    code, out, err = _plan("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "8",
                           "--speculative-eagle-topk", "4", "--speculative-num-steps", "3",
                           "--prefill-attention-backend", "fa3",
                           "--decode-attention-backend", "fa3", "--max-running-requests", "9")
    assert code == 0, err
    assert {"target", "uno_draft"} <= set(json.loads(out)["components"])


@pytest.mark.parametrize(("extra", "reason"), [
    (("--speculative-num-draft-tokens", "4", "--attention-backend", "fa3"), "--uno-lora-path"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4"), "name --attention-backend"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "triton"), "FA3 prefill and decode"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--decode-attention-backend", "flashinfer"), "FA3 prefill and decode"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--enable-deterministic-inference"), "deterministic"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--kv-cache-dtype", "fp8_e5m2"), "turns the fa3 backend into triton"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--speculative-draft-model-path", "d"), "reuses the target model"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--enable-lora"), "multi-LoRA"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "8", "--speculative-eagle-topk",
      "4", "--speculative-num-steps", "3", "--attention-backend", "fa3", "--enable-pdmux"),
     "PDMux"),
    (("--uno-lora-path", "/a", "--attention-backend", "fa3"), "positive width"),
    (("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "4", "--attention-backend",
      "fa3", "--tp-size", "2"), "TP = PP = 1"),
])
def test_refused_lines_say_why(extra: tuple[str, ...], reason: str) -> None:
    code, _, err = _plan(*extra)
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1, err
    assert reason in errors[0] and len(errors[0]) <= 200, errors


def test_tree_line_with_pages_is_planned() -> None:
    """`_handle_uno` has no page-size rule (the EAGLE family's and NGRAM's do not apply)."""
    code, out, err = _plan("--uno-lora-path", "/a", "--speculative-num-draft-tokens", "8",
                           "--speculative-eagle-topk", "4", "--speculative-num-steps", "3",
                           "--attention-backend", "fa3", "--page-size", "16",
                           "--max-running-requests", "9")
    assert code == 0, err
    assert json.loads(out)["config"]["spec_method"] == "uno"


def test_rehearse_captures_both_uno_runners() -> None:
    """The CPU runtime reads UNO's components generically: the target (width Q) and the tree
    draft (width F) are captured on the plan's buffers and replay bit-equal to eager."""
    pytest.importorskip("torch")
    code, out, err = run_cli(["rehearse", "--hidden-size", "64", "--vocab-size", "128", "--",
                              *LINE, "--uno-lora-path", "/a", "--speculative-num-draft-tokens",
                              "8", "--speculative-eagle-topk", "4", "--speculative-num-steps",
                              "3", "--attention-backend", "fa3", "--max-running-requests", "6"])
    assert code == 0, err
    assert "target:" in out and "uno_draft:" in out and "REHEARSED" in out, out


# a UNO line naming no attention backend: SGLang's default by GPU and model, which must be FA3
# (graphfit.inputs.sglang_uno.settle; the oracle compares it with SGLang's own pipeline)

LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 512,
         "intermediate_size": 1024, "num_attention_heads": 8, "num_key_value_heads": 2,
         "num_hidden_layers": 2, "vocab_size": 32000, "max_position_embeddings": 4096,
         "torch_dtype": "bfloat16"}


def _model(tmp_path: Path, **extra: object) -> str:
    (tmp_path / "config.json").write_text(json.dumps({**LLAMA, **extra}))
    return str(tmp_path)


def _unnamed(model: str, gpu: str, *extra: str) -> tuple[int, str, str]:
    return run_cli(["plan", "--json", "--gpu-memory-gb", gpu, "--", "python", "-m",
                    "sglang.launch_server", "--model-path", model, "--speculative-algorithm",
                    "UNO", "--uno-lora-path", "/a", "--max-running-requests", "8", *extra])


def test_unnamed_backend_on_hopper_is_planned_with_a_note(tmp_path: Path) -> None:
    code, out, err = _unnamed(_model(tmp_path), "H100", "--speculative-num-draft-tokens", "4")
    assert code == 0, err
    assert json.loads(out)["config"]["spec_method"] == "uno"
    assert "SGLang's default on H100 is assumed: fa3" in err
    assert "--attention-backend fa3" in err  # how to pin it


@pytest.mark.parametrize(("gpu", "extra", "reason"), [
    ("B200", ("--speculative-num-draft-tokens", "4"), "got flashinfer / flashinfer"),
    ("H100", ("--speculative-num-draft-tokens", "8", "--speculative-eagle-topk", "4",
              "--speculative-num-steps", "3"), "got flashinfer / flashinfer"),
    ("H100", ("--speculative-num-draft-tokens", "4", "--kv-cache-dtype", "fp8_e5m2"),
     "got triton / triton"),
    ("H100", ("--speculative-num-draft-tokens", "4", "--prefill-attention-backend", "fa3",
              "--speculative-eagle-topk", "1", "--page-size", "16"), "got fa3 / flashinfer"),
    ("80", ("--speculative-num-draft-tokens", "4"), "GPU's name"),
    # a named non-fa3 side: SGLang's pair once the other side's default is known (A100:
    # flashinfer), a refusal naming that side without the GPU's name
    ("A100", ("--speculative-num-draft-tokens", "4", "--decode-attention-backend", "triton"),
     "got flashinfer / triton"),
    ("80", ("--speculative-num-draft-tokens", "4", "--decode-attention-backend", "triton"),
     "the line names decode triton"),
])
def test_unnamed_backend_refusals_say_why(tmp_path: Path, gpu: str, extra: tuple[str, ...],
                                          reason: str) -> None:
    code, _, err = _unnamed(_model(tmp_path), gpu, *extra)
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1, err
    assert reason in errors[0] and len(errors[0]) <= 200, errors


def test_override_architecture_is_restated(tmp_path: Path) -> None:
    """An architecture with a model override (GPT-OSS: fa3 on Hopper, trtllm_mha on SM100,
    model_overrides/gpt_oss.py:29-44): planned on H100 with a note naming the override,
    refused on B200 with the pair (graphfit.inputs.sglang_uno_default.override_sides)."""
    model = _model(tmp_path, architectures=["GptOssForCausalLM"], model_type="gpt_oss")
    code, _, err = _unnamed(model, "H100", "--speculative-num-draft-tokens", "4")
    assert code == 0 and "GptOssForCausalLM's override (gpt_oss.py:29-44)" in err, err
    code, _, err = _unnamed(model, "B200", "--speculative-num-draft-tokens", "4")
    assert code == 2 and "got trtllm_mha / trtllm_mha" in err, err


def test_unnamed_backend_without_a_local_config_is_refused() -> None:
    code, _, err = _unnamed("org/not-local", "H100", "--speculative-num-draft-tokens", "4")
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1 and "local config.json" in errors[0], err


@given(gpu=st.sampled_from(("A100", "L40S", "H100", "B200", "RTX5090", "MI300X", "80")),
       topk=st.sampled_from((None, 1, 2, 4)), page=st.sampled_from((None, 1, 16)),
       sinks=st.booleans())
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_unnamed_backend_is_planned_on_fa3_or_refused_in_one_line(
        tmp_path: Path, gpu: str, topk: int | None, page: int | None, sinks: bool) -> None:
    """Any GPU, topk, page size and model: the line is planned only with a note naming fa3 as
    the assumed backend, or refused with one `error:` line (exit 2), never a traceback."""
    extra = ["--speculative-num-draft-tokens", "4"]
    if topk is not None:
        extra += ["--speculative-eagle-topk", str(topk), "--speculative-num-steps", "3"]
        extra[1] = "8" if topk > 1 else "4"
    if page is not None:
        extra += ["--page-size", str(page)]
    code, _, err = _unnamed(_model(tmp_path, learnable_sink=sinks), gpu, *extra)
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    if code == 0:
        assert "is assumed: fa3" in err and not errors
    else:
        assert code == 2 and len(errors) == 1 and len(errors[0]) <= 200, err


# a line leaving the backend to SGLang while graphfit lacks an input (graphfit.inputs.
# sglang_uno_default): refused with SGLang's reason when the input could not make it FA3

def test_one_gpu_per_generation() -> None:
    from graphfit.inputs.sglang_draft_default import gpu_kind
    from graphfit.inputs.sglang_uno_default import KIND_GPUS
    from graphfit.planner.engines.sglang_attn_default import GPU_KINDS

    assert set(KIND_GPUS) == set(GPU_KINDS)
    assert all(gpu_kind(name) == kind for kind, name in KIND_GPUS.items())


@pytest.mark.parametrize(("model", "extra", "reason"), [
    ("llama", ("--speculative-num-draft-tokens", "8", "--speculative-eagle-topk", "4",
               "--speculative-num-steps", "3"), "on every GPU, never fa3"),
    ("llama", ("--speculative-num-draft-tokens", "3", "--speculative-eagle-topk", "1",
               "--page-size", "16"), "on every GPU, never fa3"),
    ("org/not-local", ("--speculative-num-draft-tokens", "4", "--kv-cache-dtype", "fp8_e5m2"),
     "never fa3 on any GPU or model"),
    ("llama", ("--speculative-num-draft-tokens", "4", "--kv-cache-dtype", "fp8_e5m2",
               "--prefill-attention-backend", "fa3"), "never fa3 on any GPU or model"),
])
def test_unnamed_backend_refused_precisely_without_the_gpu_name(
        tmp_path: Path, model: str, extra: tuple[str, ...], reason: str) -> None:
    path = _model(tmp_path) if model == "llama" else model
    code, _, err = _unnamed(path, "80", *extra)
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1 and len(errors[0]) <= 200, err
    assert reason in errors[0], errors


@given(topk=st.sampled_from((None, 1, 2, 4)), page=st.sampled_from((None, 1, 16)),
       sinks=st.booleans(), mla=st.booleans(), fp8=st.integers(0, 4))
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_refusal_without_the_gpu_name_holds_for_every_gpu(
        tmp_path: Path, topk: int | None, page: int | None, sinks: bool, mla: bool,
        fp8: int) -> None:
    """Given in GiB: a line refused as never FA3 is refused on every GPU graphfit names, and a
    line refused for the missing name is planned on at least one."""
    from graphfit.inputs.sglang_uno_default import KIND_GPUS

    extra = ["--speculative-num-draft-tokens", "5" if topk and topk > 1 else "4"]
    if topk is not None:
        extra += ["--speculative-eagle-topk", str(topk), "--speculative-num-steps", "3"]
    if page is not None:
        extra += ["--page-size", str(page)]
    if fp8 == 0:
        extra += ["--kv-cache-dtype", "fp8_e5m2"]
    shape: dict[str, object] = {"learnable_sink": sinks}
    if mla:
        shape.update(architectures=["DeepseekV2ForCausalLM"], kv_lora_rank=512)
    model = _model(tmp_path, **shape)
    code, _, err = _unnamed(model, "80", *extra)
    assert code == 2, err
    named = [_unnamed(model, gpu, *extra)[0] for gpu in KIND_GPUS.values()]
    if "GPU's name" in err:
        assert 0 in named, (extra, named, err)
    else:  # never FA3, or a refusal before the backend: refused whatever the GPU
        assert set(named) == {2}, (extra, named, err)
