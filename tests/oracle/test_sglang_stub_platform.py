"""SGLang's CUDA probes answer the same whatever SGLang code ran first in a session.

SGLang caches `is_cuda()` for the process at its first call (lru_cache, utils/common.py:157-
159), and modules bind it at import (`_is_cuda = is_cuda()`, layers/quantization/
fp8_utils.py:64). A test that runs SGLang code outside `sglang_stubs.fake_cuda` (a
`get_config` that fails falls into its pointer-adapter import chain, hf_transformers/
config.py:382-388) used to make that first call, and every later line in the process then saw
no GPU memory (utils/common.py:990-1017) and another decode max (memory_hook.py:171-180):
test_sglang_deepseek_v41_config_oracle.py before test_sglang_dspark_override_oracle.py
failed 10 tests. This replays that order in a fresh interpreter (one process per session
would hide it once any line had been resolved first).
"""

from __future__ import annotations

import functools
import subprocess
import sys

from tests.helpers import ROOT
from tests.oracle.paths import require

SCRIPT = """
import json, tempfile
from pathlib import Path
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs as ss
so.oracle()
directory = Path(tempfile.mkdtemp())
(directory / "config.json").write_text(json.dumps({
    "model_type": "deepseek_v41", "architectures": ["DeepseekV41ForCausalLM"],
    "text_config": "x"}))
with ss.stubbed():  # no fake CUDA, as a config-only oracle runs SGLang
    from sglang.srt.utils.hf_transformers.config import get_config
    try:
        get_config(str(directory), trust_remote_code=False)
    except ValueError:
        pass
    else:
        raise SystemExit("SGLang loaded a string text_config")
import sys
print("inductor", "torch._inductor.compile_fx" in sys.modules)
with ss.fake_cuda(gpu_mem_mib=81920):
    import sglang.srt.utils.common as common
    print(common.is_cuda(), common.get_device_memory_capacity("cuda"))
"""


@functools.cache
def _fresh() -> subprocess.CompletedProcess[str]:
    """SCRIPT's one run in a fresh interpreter, which both tests read."""
    require("sglang")
    return subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, check=False, timeout=300)


def test_a_failed_config_load_first_leaves_sglang_on_the_fake_gpu() -> None:
    """SGLang's own probes, after the failing load ran first: CUDA, and the injected
    memory (not the no-GPU None)."""
    done = _fresh()
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["True", "81920"], done.stdout[-500:]


def test_sglang_install_leaves_torch_inductor_unimported() -> None:
    """SGLang's import-time `@torch.compile` decorators (layers/moe/moe_runner/deep_gemm.py:93,
    reached by install's model_config import) got deferred wrappers (sglang_stubs'
    `_deferred_compile`): the ~1.5 s CPU torch._inductor import is not paid by a process that
    never compiles. Read from the same fresh interpreter's output as the test above."""
    done = _fresh()
    assert "inductor False" in done.stdout, (done.stdout[-500:], done.stderr[-2000:])
