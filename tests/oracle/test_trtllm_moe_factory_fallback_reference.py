"""ConfigurableMoE's communication factory past NVLinkOneSided, on the one-sided all-to-all
line, against the restated engine (issue 23, s70f; tests/oracle/trtllm_reference.py, no
wheel): once NVLinkOneSided's constructor raises, `create_strategy` builds
AllGatherReduceScatter for an expert count that is not a multiple of the MoE EP size, else
tries NVLinkTwoSided, NcclEP, then DeepEP and DeepEPLowLatency under TRTLLM_CAN_USE_DEEP_EP
(default "1") with a bfloat16 activation dtype (ModelConfig.torch_dtype, bfloat16 for an
untyped checkpoint), and AllGatherReduceScatter last (`ref.cite_fact("moe_factory_fallback")`,
`ref.cite_fact("model_config_torch_dtype")`). The line must name those strategies in that
order where the factory selects unforced, and add nothing elsewhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_moe_config_reference import line

WHY = (ref.cite_fact("moe_factory_fallback"), ref.cite_fact("model_config_torch_dtype"))
HEAD = "if NVLinkOneSided cannot be built"
STRATEGIES = ("NVLinkTwoSided", "NcclEP", "DeepEP", "DeepEPLowLatency",
              "AllGatherReduceScatter")
SWITCH = (None, "1", "0", "", "true")


def mixtral(folder: Path, experts: int, dtype: str | None) -> str:
    """A top-2 MixtralForCausalLM checkpoint of `experts` experts and `dtype` (None:
    untyped); its path."""
    model = folder / "ckpt"
    model.mkdir(exist_ok=True)
    data: dict[str, Any] = {"architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
                            "num_experts_per_tok": 2, "num_hidden_layers": 2,
                            "num_attention_heads": 32, "num_local_experts": experts}
    if dtype is not None:
        data["torch_dtype"] = dtype
    (model / "config.json").write_text(json.dumps(data))
    return str(model)


def tried(text: str) -> tuple[str, ...]:
    """The strategies the line's fallback clause names, in order."""
    at = text.index(HEAD)
    return tuple(match[0] for match in re.finditer(rf"\b({'|'.join(STRATEGIES)})\b",
                                                   text[at:]))


@settings(max_examples=16, deadline=None)
@given(experts=st.sampled_from([6, 8, 16, 12]), ep=st.sampled_from([2, 4, 8]),
       dtype=st.sampled_from(["bfloat16", "float16", None, "float32"]),
       switch=st.sampled_from(SWITCH), backend=st.sampled_from([None, "CUTLASS", "DEEPGEMM"]))
def test_the_factorys_order_is_named(tmp_path_factory: Any, experts: int, ep: int,
                                     dtype: str | None, switch: str | None,
                                     backend: str | None) -> None:
    """Drawn expert counts, EP sizes, dtypes and switch values on the default route."""
    folder = tmp_path_factory.mktemp("factory")
    model = mixtral(folder, experts, dtype)
    environ = {} if switch is None else {"TRTLLM_CAN_USE_DEEP_EP": switch}
    got = str(line(folder, model, ep, True, None if backend is None else {"backend": backend},
                   environ))
    want = ref.moe_factory_after_one_sided(experts, ep, switch,
                                           ref.model_config_torch_dtype(dtype))
    assert HEAD in got, (got, WHY)
    assert tried(got) == want, (experts, ep, dtype, switch, got)


def test_no_clause_where_the_factory_does_not_select(tmp_path: Path) -> None:
    """A forced TRTLLM_FORCE_COMM_METHOD (no fallback: `_create_forced_method` raises), a bare
    CutlassFusedMoE (ENABLE_CONFIGURABLE_MOE "0": its own selection) and WIDEEP get no
    clause; the default route does."""
    model = mixtral(tmp_path, 8, "bfloat16")
    cases: list[tuple[dict[str, Any] | None, dict[str, str], bool]] = [
        (None, {}, True),
        (None, {"TRTLLM_FORCE_COMM_METHOD": "NVLINK_ONE_SIDED"}, False),
        (None, {"ENABLE_CONFIGURABLE_MOE": "0"}, False),
        ({"backend": "WIDEEP"}, {}, False),
    ]
    for moe_config, environ, want in cases:
        got = str(line(tmp_path, model, 4, True, moe_config, environ))
        assert (HEAD in got) == want, (moe_config, environ, got)


def test_fixed_lines(tmp_path: Path) -> None:
    """Fixed lines: not a multiple, the default switch, float16, an untyped checkpoint
    (bfloat16 here, unlike WideEPMoE) and the switch off."""
    cases: list[tuple[int, str | None, dict[str, str], tuple[str, ...]]] = [
        (6, "bfloat16", {}, ("AllGatherReduceScatter",)),
        (8, "bfloat16", {}, STRATEGIES),
        (8, "float16", {}, ("NVLinkTwoSided", "NcclEP", "AllGatherReduceScatter")),
        (8, None, {}, STRATEGIES),
        (8, "bfloat16", {"TRTLLM_CAN_USE_DEEP_EP": "0"},
         ("NVLinkTwoSided", "NcclEP", "AllGatherReduceScatter")),
    ]
    for experts, dtype, environ, want in cases:
        model = mixtral(tmp_path, experts, dtype)
        assert ref.moe_factory_after_one_sided(
            experts, 4, environ.get("TRTLLM_CAN_USE_DEEP_EP"),
            ref.model_config_torch_dtype(dtype)) == want
        got = str(line(tmp_path, model, 4, True, None, environ))
        assert tried(got) == want, (experts, dtype, environ, got)
