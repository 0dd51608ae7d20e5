"""MuseGlimmer's prefill graph max of 512 tokens, graphfit vs SGLang 0.5.23's own code.

SGLang declares `--cuda-graph-max-bs-prefill 512` for a MuseGlimmer target before its
cuda-graph resolution unless the flag is given
(`apply_muse_glimmer_prefill_cuda_graph_max_bs_default`, arg_groups/cuda_graph_hook.py:
375-389, run at arg_groups/pipeline.py:186). Locked as the flag (:74-75), it outranks the
chunked-prefill default and its caps (memory_hook.py:233-263), attention DP's re-clamp
(parallel_hook.py:344-349), and sets the ladder's length the memory hook's reserve reads
(memory_hook.py:386-387). Per pasted line, graphfit's plan's prefill component must equal what
SGLang resolves and builds (tests/oracle/sglang_plan_prefill.compare), and its static memory
fraction SGLang's. Kept small (< 60 s on one core); the grid runs in `python -m
tests.oracle.measure_sglang_muse_glimmer_prefill`."""

from __future__ import annotations

import json

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_muse_glimmer as mg  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_plan_prefill as spp  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402

S48 = ("--max-running-requests", "48")
PLAN_LINES: list[tuple[str, tuple[str, ...]]] = [
    (mg.TEXT, S48),  # the default: 512, above a smaller chunk too
    (mg.TEXT, (*S48, "--chunked-prefill-size", "256")),
    (mg.TEXT, (*S48, "--cuda-graph-max-bs-prefill", "2048")),  # the hook's exit: as given
    (mg.TEXT, (*S48, "--cuda-graph-config", json.dumps({"prefill": {"max_bs": 96}}))),
    (mg.TEXT, (*S48, "--cuda-graph-bs-prefill", "100", "700")),  # the list, max 512
    (mg.TEXT, (*S48, "--tp", "4", "--attn-dp-size", "4", "--chunked-prefill-size", "1024")),
    (mg.VISION, (*S48, "--cuda-graph-backend-prefill", "full")),
    (mg.VISION, (*S48, "--max-total-tokens", "300")),
]


@pytest.mark.parametrize(("arch", "argv"), PLAN_LINES,
                         ids=[f"{'text' if a == mg.TEXT else 'vlm'} {' '.join(v[2:]) or '-'}"
                              for a, v in PLAN_LINES])
def test_muse_glimmer_prefill_plan_equals_sglang(arch: str, argv: tuple[str, ...]) -> None:
    out = spp.compare(argv, 80, mg.model_dir(arch))
    assert out.compared, (out.sglang_rejects, out.graphfit_refuses)
    assert not out.diffs, out.diffs


def test_oracle_muse_glimmer_max_is_512() -> None:
    """The oracle itself: SGLang's max on a plain MuseGlimmer line is 512 tokens, the same
    line's on the oracle's Llama model its chunked-prefill default (the hook keys on the
    architecture)."""
    muse = so.resolve(S48, 80, model=mg.model_dir(mg.TEXT))
    llama = so.resolve(S48, 80)
    assert isinstance(muse, so.Resolved) and isinstance(llama, so.Resolved)
    assert muse.prefill_max_bs == 512
    assert llama.prefill_max_bs == llama.chunked_prefill_size != 512


@pytest.mark.parametrize("arch", [mg.TEXT, mg.VISION])
def test_muse_glimmer_from_graphfit_flags_equals_sglang(arch: str) -> None:
    """No pasted line (graphfit's own --model-path): the planner's default (sglang_prefill.
    declared_max_tokens) gives SGLang's graphs and static fraction for the same line."""
    import graphfit
    from graphfit.cli.options import resolve_values
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    model = mg.model_dir(arch)
    values = {"engine": "sglang", "model_path": model, "gpu_memory_gb": 80.0,
              "max_num_seqs": 48}
    given = resolve_values(values, environ={}).config().replace(mem_fraction_static=None)
    config = graphfit.plan(given).config
    assert config.cuda_graph_max_bs_prefill is None  # nothing on the way set it
    ours = prefill_graphs(config)
    sg = po.prefill(S48, 80, model)
    assert not isinstance(sg, so.Rejected)
    assert (ours.backend, ours.captured) == (sg.backend, sg.captured)
    theirs = po.mem_fraction(S48, 80, model)  # the reserve counts the ladder's sizes
    assert not isinstance(theirs, so.Rejected)
    assert config.mem_fraction_static == theirs[1]
