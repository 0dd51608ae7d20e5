"""Reference test (no FlashInfer on CPU: its DCP all-to-all is a CUDA JIT module) for the fi_a2a
workspace graphfit shows under SGLang's decode context parallelism (issue 23 s47d,
graphfit.planner.engines.sglang_dcp.workspace_bytes). Citations are flashinfer-python 0.6.17,
the version SGLang 0.5.23 checks for (kernels/ops/layernorm/muse_spark_rmsnorm_nvfp4_quant.py:
197-198), as `path@0.6.17:line` inside its wheel:

* flashinfer/comm/dcp_alltoall.py@0.6.17:117-136: `decode_cp_a2a_workspace_size(cp_size)` is
  `get_workspace_size_per_rank`, bound at :99 to the module's
  `get_dcp_workspace_size_per_rank`;
* flashinfer/data/csrc/trtllm_dcp_alltoall.cu@0.6.17:42-45: that is TensorRT-LLM's
  `computeHelixWorkspaceSizePerRank(cp_size)`;
* flashinfer/data/csrc/nv_internal/tensorrt_llm/kernels/helixAllToAll.cu@0.6.17:
  - :40-43 `struct ALIGN_256 HelixFifoInfo { int64 head; int64 tail; }` -> 256 bytes
    (ALIGN_256 is `__align__(256)` / `alignas(256)`, moeCommKernelsCommon.h@0.6.17:31-33);
  - :50-52 FIFO depth 4 x 128 KiB entries = 524288 bytes per FIFO;
  - :581-593 `computeHelixMaxChannelCount`: blocks per channel = ceil(cp / 8) x 2
    (MAX_GROUP_COUNT_PER_BLOCK = 8, moeCommKernelsCommon.h@0.6.17:64), channels =
    max(SMs / blocks, 1) with integer division;
  - :595-606 size = FIFO bytes x cp x channels + 2 x sizeof(HelixFifoInfo) x cp x channels.

The expected numbers below are worked by hand from those lines (written out in each row), not
taken from graphfit.
"""

from __future__ import annotations

import pytest

from graphfit.planner.engines import sglang_dcp

# (cp_size, SM count, channels, bytes per rank), each worked from helixAllToAll.cu:581-606
ROWS = [
    # 148 SMs (B200), cp 2: blocks 1 x 2 = 2, channels 74; 2 x 74 = 148 pairs x 524800 B
    (2, 148, 74, 77_670_400),
    # cp 8: ceil(8 / 8) = 1 -> 2 blocks, 74 channels; 8 x 74 = 592 pairs x 524800 B
    (8, 148, 74, 310_681_600),
    # cp 9: ceil(9 / 8) = 2 -> 4 blocks, 148 // 4 = 37 channels; 9 x 37 = 333 pairs
    (9, 148, 37, 174_758_400),
    # cp 16 on 132 SMs: 4 blocks, 33 channels; 16 x 33 = 528 pairs x 524800 B
    (16, 132, 33, 277_094_400),
    # cp 64 on 2 SMs: 8 x 2 = 16 blocks, 2 // 16 = 0 -> at least 1 channel; 64 pairs
    (64, 2, 1, 33_587_200),
]


@pytest.mark.parametrize("cp,sms,channels,size", ROWS, ids=[str(r[:2]) for r in ROWS])
def test_workspace_matches_the_kernel_sources(cp: int, sms: int, channels: int,
                                              size: int) -> None:
    assert sglang_dcp.channels(cp, sms) == channels
    assert sglang_dcp.workspace_bytes(cp, sms) == size
    assert size == cp * channels * (4 * 128 * 1024 + 2 * 256)  # :599-605, the row's own check


def test_workspace_shown_for_the_resolved_backend() -> None:
    """The plan's line carries the B200 figure for the line's --dcp-size (74.1 MiB at 2)."""
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    line = ["python", "-m", "sglang.launch_server", "--model-path", "m", "--tp-size", "4",
            "--dcp-size", "2", "--max-running-requests", "24", "--attention-backend",
            "flashinfer"]
    config = resolve_values({"gpu_memory_gb": "B200"}, environ={},
                            pasted=commandline.read(line)).config()
    shown = sglang_dcp.shown(config)
    assert shown is not None and f"{77_670_400 / 2**20:.1f} MiB per rank" in shown[1]
    config = resolve_values({"gpu_memory_gb": "B200"}, environ={}, pasted=commandline.read(
        [*line, "--dcp-comm-backend", "a2a"])).config()
    assert sglang_dcp.shown(config) is None


@pytest.mark.parametrize("cp,sms", [(0, 148), (2, 0)])
def test_bad_sizes_refused(cp: int, sms: int) -> None:
    with pytest.raises(ValueError, match="must be >= 1"):
        sglang_dcp.workspace_bytes(cp, sms)
