"""The live check's reading of the mamba cap, the EPLB fields and Inkling's prefill default
from a ServerArgs (graphfit.inputs.sglang_live_flags) without SGLang's sources: the pasted
line's reasons on a refused value, and the Inkling rule's exits. (tests/oracle/
test_sglang_live_flags.py compares live and pasted on SGLang's own ServerArgs.)"""

from __future__ import annotations

import json

import pytest

from graphfit.inputs import sglang_live_flags
from graphfit.planner.core.errors import ConfigError

INKLING = "InklingForConditionalGeneration"


@pytest.mark.parametrize(("args", "arch", "full"), [
    ({"disable_cuda_graph": True}, INKLING, True),  # the per-phase default outranks it
    ({}, INKLING, True),
    ({"disable_cuda_graph": True}, "LlamaForCausalLM", False),
    ({"disable_cuda_graph": True}, None, False),  # no local config: nothing known
    ({"disable_cuda_graph": True, "disable_prefill_cuda_graph": True}, INKLING, False),
    ({"cuda_graph_backend_prefill": "breakable"}, INKLING, False),
    ({"disable_cuda_graph": True, "model_path": "instance://x"}, INKLING, False),
    ({"disable_cuda_graph": True,
      "cuda_graph_config": json.dumps({"prefill": {"backend": "disabled"}})}, INKLING, False),
])
def test_inkling_prefill_rule_exits(args: dict, arch: str | None, full: bool) -> None:
    got = sglang_live_flags.inkling_prefill(args, arch)
    assert got == ({"cuda_graph_backend_prefill": "full"} if full else {})


def test_flags_read_and_refused_with_the_pasted_reason() -> None:
    got = sglang_live_flags.settings({"max_mamba_cache_size": 24, "enable_eplb": True,
                                      "ep_size": 2, "ep_join_mode": "scale"}, None)
    assert got == {"max_mamba_cache_size": 24, "enable_eplb": True, "ep_size": 2,
                   "ep_join_mode": "scale"}
    for key in ("max_mamba_cache_size", "ep_size"):
        with pytest.raises(ConfigError, match=f"server_args.{key}"):
            sglang_live_flags.settings({key: 0}, None)
