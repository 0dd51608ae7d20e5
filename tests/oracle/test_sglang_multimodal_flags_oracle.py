"""SGLang 0.5.23 `--enable-multimodal` / `--model-impl transformers`: where they change graphs.

SGLang's side: its own argument pipeline on the line (prepare_server_args + resolve_once) and
its own `ModelConfig` of the model directory written here (`model_config_of`): whether it is
multimodal, the prefill backend it resolves, the static memory fraction. graphfit's side: the
same line pasted into `graphfit plan` (graphfit.inputs.sglang_model_impl): it plans exactly
the lines where the flags change nothing, and refuses the ones where they turn a
default-off multimodal architecture on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.helpers import run_cli  # noqa: E402
from tests.oracle import sglang_dflash_compare as dc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

FLAGS = ((), ("--enable-multimodal",), ("--model-impl", "transformers"))


def gemma3_dir() -> str:
    """A small Gemma 3 VLM config HF's Gemma3Config accepts (an architecture SGLang serves
    text-only by default, configs/model_config.py:691-702)."""
    directory = dc._drafts_root() / "gemma3"
    if not directory.exists():
        directory.mkdir()
        (directory / "config.json").write_text(json.dumps({
            "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
            "torch_dtype": "bfloat16",
            "text_config": {"model_type": "gemma3_text", "hidden_size": 1152,
                            "num_hidden_layers": 4, "num_attention_heads": 4,
                            "num_key_value_heads": 1, "head_dim": 256,
                            "intermediate_size": 4096, "vocab_size": 262208,
                            "max_position_embeddings": 32768},
            "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152,
                              "num_hidden_layers": 4, "num_attention_heads": 16,
                              "intermediate_size": 4304, "patch_size": 14,
                              "image_size": 896}}))
    return str(directory)


def sglang_view(model: str, flags: tuple[str, ...]) -> tuple[bool, str, float]:
    so.oracle()  # SGLang's sources on the import path, with the CPU stubs
    import sglang.srt.arg_groups.cuda_graph_hook as hook
    from sglang.srt.arg_groups.overrides import resolving_view

    r = so.resolve(flags, model=model)
    assert isinstance(r, so.Resolved), r
    return (bool(hook.model_config_of(r.record).is_multimodal), str(r.prefill_backend),
            round(float(resolving_view(r.record).mem_fraction_static), 4))


def graphfit_view(model: str, flags: tuple[str, ...]) -> tuple[int, str]:
    code, out, text = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--", "python", "-m",
                               "sglang.launch_server", "--model-path", model, *flags])
    if code != 0:
        return code, next(ln for ln in text.splitlines() if ln.startswith("error:"))
    return code, json.dumps(json.loads(out)["config"], sort_keys=True)


@pytest.mark.parametrize("flags", FLAGS[1:], ids=["enable-multimodal", "model-impl"])
def test_flags_that_turn_a_default_off_vlm_multimodal_are_refused(flags: tuple[str, ...]
                                                                  ) -> None:
    model = gemma3_dir()
    plain, flagged = sglang_view(model, ()), sglang_view(model, flags)
    assert plain[:2] == (False, "breakable")
    assert flagged[:2] == (True, "disabled") and flagged[2] != plain[2]  # graphs and memory
    assert graphfit_view(model, ())[0] == 0  # the default is planned (text-only)
    code, said = graphfit_view(model, flags)
    assert code == 2 and "turns SGLang's multimodal serving on for " \
        "Gemma3ForConditionalGeneration" in said and len(said) <= 200


@pytest.mark.parametrize("flags", FLAGS[1:], ids=["enable-multimodal", "model-impl"])
def test_flags_that_change_nothing_are_planned_as_without_them(flags: tuple[str, ...]) -> None:
    """A text model (the oracle's Llama): SGLang resolves the same multimodal flag, prefill
    backend and memory fraction with and without the flag; graphfit plans the same config."""
    model = str(so.oracle().model_dir)
    assert sglang_view(model, flags) == sglang_view(model, ())
    assert graphfit_view(model, flags) == graphfit_view(model, ())
    assert graphfit_view(model, flags)[0] == 0


def test_the_gemma3_directory_is_read_as_multimodal() -> None:
    """graphfit's reading of the same directory (what the refusal keys on)."""
    from graphfit.inputs import model_config

    info = model_config.read_model(Path(gemma3_dir()) / "config.json")
    assert info.multimodal and info.architecture == "Gemma3ForConditionalGeneration"
