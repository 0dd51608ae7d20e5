"""Host placement, measured (not a test; tests/planner/test_buffer_placement.py and
tests/oracle/test_trtllm_placement_reference.py are):

    python -m tests.oracle.measure_trtllm_placement 200 --before /work/main

Generates N configs of every engine (graphfit.testing.engine_configs) and N TensorRT-LLM
encoder lines of each runner (encoder-only, encoder-decoder, feature mode), then plans each
with this checkout and with the graphfit at `--before` (a checkout without placements; run in
a subprocess), and prints, for both in the same run:

* plans without host buffers whose device figures (total_bytes, reference_bytes, and each
  component's) are unchanged;
* encoder lines whose device reference bytes equal the bytes of the device tensors the
  restated engine allocates (tests/oracle/trtllm_reference.py `token_mode_tensors`,
  `feature_mode_tensors`, and since issue 23 s37t each captured key's `_seq_lens_cuda`,
  `graph_seq_lens_cuda`), and whose host reference bytes equal its host tensors' (the
  checkout before reports no host bytes).
"""

from __future__ import annotations

import sys
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st


def _figures(p: Any) -> dict[str, Any]:
    comps = {n: [c.total_bytes, c.reference_bytes] for n, c in p.components.items()}
    keyed = {n: [c.total_bytes, c.reference_bytes] for n, c in p.keyed.items()}
    return {"total": p.total_bytes, "reference": p.reference_bytes,
            "host": getattr(p, "host_bytes", 0), "components": comps, "keyed": keyed,
            "encoder": (None if "encoder" not in p.keyed else
                        [p.keyed["encoder"].reference_bytes,
                         getattr(p.keyed["encoder"], "host_reference_bytes", 0)])}


def emit(cases: list[dict[str, Any]]) -> list[Any]:
    """Each case's figures with the graphfit on sys.path (None when it refuses the case)."""
    from graphfit import ConfigError, EngineConfig, plan
    from graphfit.inputs.settings import COMMAND_LINE, Setting
    from tests.oracle.test_trtllm_reference import graphfit_config

    out: list[Any] = []
    for case in cases:
        try:
            if case["kind"] == "config":
                p = plan(EngineConfig.from_dict(case["config"]))
            else:
                extra = ([Setting("encoder_feature_spec", case["spec"], "the model class",
                                  COMMAND_LINE)] if case["kind"] == "feature" else [])
                p = plan(graphfit_config(case["raw"], *extra))
            out.append(_figures(p))
        except ConfigError:
            out.append(None)
    return out


def _draw(n: int) -> list[dict[str, Any]]:
    from graphfit.testing import engine_configs
    from tests.oracle.test_trtllm_encdec_reference import encdec_args
    from tests.oracle.test_trtllm_encoder_reference import encode_args
    from tests.oracle.test_trtllm_parallel_reference import feature_lines

    cases: list[dict[str, Any]] = []
    run = settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
                   suppress_health_check=list(HealthCheck))

    @run
    @given(engine_configs())
    def configs(config: Any) -> None:
        cases.append({"kind": "config", "config": config.to_dict()})

    @run
    @given(st.one_of(encode_args().map(lambda r: {"kind": "encode", "raw": r}),
                     encdec_args().map(lambda r: {"kind": "encdec", "raw": r}),
                     feature_lines().map(lambda c: {"kind": "feature", "raw": c[0],
                                                    "spec": [list(c[3][0]), c[3][1],
                                                             c[3][2]]})))
    def lines(case: dict[str, Any]) -> None:
        cases.append(case)

    configs()
    lines()
    return cases


def _engine_bytes(case: dict[str, Any]) -> tuple[int, int] | None:
    """(device, host) bytes of the encoder tensors the restated engine allocates."""
    from tests.oracle import trtllm_reference as ref

    raw = case["raw"]
    if case["kind"] == "feature":
        gcfg = raw["encoder_cuda_graph_config"]
        shape, dtype, fixed = case["spec"]
        theirs = ref.feature_runner_ref(gcfg["batch_sizes"], gcfg["enable_padding"],
                                        raw["encoder_max_batch_size"],
                                        raw["encoder_max_num_tokens"],
                                        (tuple(shape), dtype, fixed),
                                        tp_size=raw["tensor_parallel_size"])
        tensors = ref.feature_mode_tensors(theirs)
        keys: Any = theirs.capture_keys if theirs.enabled else set()
    else:
        runner = (ref.encoder_runner_from_args(raw) if case["kind"] == "encode"
                  else ref.encdec_runner_from_args(raw)[0])
        if not runner.enabled:
            return 0, 0
        tensors = ref.token_mode_tensors(runner.static_rows(), runner.seq_lens_rows())
        keys = runner.captured_keys()
    # each captured key's graph attention metadata owns a device `_seq_lens_cuda` (issue 23,
    # s37t: `ref.cite_fact("encoder_graph_seq_lens_cuda")`)
    graphs = {(ref.DEVICE, f"_seq_lens_cuda{k}"): v
              for k, v in ref.graph_seq_lens_cuda(keys).items()}
    return (ref.placed_bytes(tensors, ref.DEVICE) + ref.placed_bytes(graphs, ref.DEVICE),
            ref.placed_bytes(tensors, ref.HOST))


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import emit_before

    n = int(args[0]) if args else 100
    cases = _draw(n)
    after = emit(cases)
    # the other checkout's graphfit and tests (this file run by path, from there)
    old: list[Any] = emit_before(__file__, args, cases) or [None] * len(cases)
    plain = [(a, b) for c, a, b in zip(cases, after, old, strict=True)
             if a is not None and a["host"] == 0 and c["kind"] == "config"]
    same = sum(b is not None and {k: a[k] for k in ("total", "reference", "components",
                                                      "keyed")}
               == {k: b[k] for k in ("total", "reference", "components", "keyed")}
               for a, b in plain)
    print(f"configs planned without host buffers: {len(plain)}; device figures unchanged "
          f"against --before: {same}/{len(plain)}")
    lines = [(c, a, b) for c, a, b in zip(cases, after, old, strict=True)
             if c["kind"] != "config" and a is not None]
    for label, fig in (("this checkout", 1), ("--before", 2)):
        device = host = 0
        for row in lines:
            case, figures = row[0], row[fig]
            engine = _engine_bytes(case)
            if figures is None or engine is None or figures["encoder"] is None:
                continue
            device += figures["encoder"][0] == engine[0]
            host += figures["encoder"][1] == engine[1]
        print(f"{label}: encoder lines {len(lines)}; device reference bytes == the engine's "
              f"device tensors {device}/{len(lines)}, host reference bytes == its host "
              f"tensors {host}/{len(lines)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
