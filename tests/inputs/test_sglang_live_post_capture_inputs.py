"""The live check's reading of post-capture KV sizing's inputs from a ServerArgs
(graphfit.inputs.sglang_live_post_capture) without SGLang's sources: the same fields as the
pasted line with the same flags, over generated flag sets; another device than CUDA refused
with the pasted line's reason. (tests/oracle/test_sglang_live_post_capture.py compares both
with SGLang's own ServerArgs and decision.)"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit.inputs import commandline, sglang_live_post_capture
from graphfit.inputs.settings import merge
from graphfit.planner.config import keyword_default
from graphfit.planner.core.errors import ConfigError

# ServerArgs field -> (flag, values drawn); a store_true flag's value is True / False
FLAGS: dict[str, tuple[str, tuple[Any, ...]]] = {
    "device": ("--device", ("cuda", "cuda:1")),
    "disaggregation_transfer_backend": ("--disaggregation-transfer-backend",
                                        ("mooncake", "nixl", "mooncake_tcp")),
    "enable_dynamic_chunking": ("--enable-dynamic-chunking", (True, False)),
    "max_prefill_tokens": ("--max-prefill-tokens", (2048, 16384, 32768)),
    "pp_size": ("--pp-size", (1, 2, 4)),
    "enable_unified_memory": ("--enable-unified-memory", (True, False)),
    "disaggregation_mode": ("--disaggregation-mode", ("null", "prefill", "decode")),
    "chunked_prefill_size": ("--chunked-prefill-size", (256, 8192)),
    "enable_memory_saver": ("--enable-memory-saver", (True, False)),
}


def _line(args: dict[str, Any]) -> list[str]:
    out = ["python", "-m", "sglang.launch_server", "--model-path", "org/model"]
    for key, value in args.items():
        flag = FLAGS[key][0]
        if value is True:
            out.append(flag)
        elif value is not False:
            out += [flag, str(value)]
    return out


@settings(max_examples=40, deadline=None)
@given(st.fixed_dictionaries({}, optional={k: st.sampled_from(v[1]) for k, v in FLAGS.items()}))
def test_the_server_args_read_as_the_pasted_flags(args: dict[str, Any]) -> None:
    live = sglang_live_post_capture.settings({**args, "model_path": "org/model"})
    pasted = merge(commandline.read(_line(args)).settings).values
    for field, value in live.items():  # a default the line leaves out is the default
        want = pasted[field] if field in pasted else keyword_default(field)
        assert want == value, (field, value, want)
    # and every field these flags set on the pasted line is read live too
    base = merge(commandline.read(_line({})).settings).values
    set_by_flags = {f for f, v in pasted.items() if f not in base or base[f] != v}
    assert set_by_flags - {"engine", "cudagraph_mode"} <= set(live), set_by_flags - set(live)


@pytest.mark.parametrize("device", ["npu", "cpu", "xpu:0"])
def test_another_device_is_refused_as_pasted(device: str) -> None:
    with pytest.raises(ConfigError, match="CUDA only"):
        sglang_live_post_capture.settings({"device": device})
