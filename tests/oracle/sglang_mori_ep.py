"""MoRI EP's environment switches on attention-DP lines (issue 23, s70j): SGLang 0.5.23's own
resolution and runners against graphfit's plan of the same pasted line, on every aspect
tests.oracle.sglang_moe_dense_tp compares (the a2a oracle's, plus every runner's
`global_num_tokens` entries).

`SGLANG_MORI_EP_V2` and `SGLANG_MORI_RECV_BOUND` decide `require_mlp_tp_gather()` on a mori
runner only under attention DP with the DP LM head and `--moe-dense-tp-size` set
(utils/common.py:4090-4128), so every drawn line has those; the switches are drawn as the
environment words the a2a oracle sets for the call (also values SGLang's EnvBool cannot
parse). Two shapes: a mori target (the a2a oracle's mori draw), and a DeepEP target whose
EAGLE draft runs under `--speculative-moe-a2a-backend mori` (the target's hook never
resolves EPv2 there, graphfit.planner.engines.sglang_mori_ep).
"""

from __future__ import annotations

import functools
from typing import Any

from tests.oracle import sglang_moe_a2a_compare as mc
from tests.oracle import sglang_moe_dense_tp as dt

EP_V2 = "SGLANG_MORI_EP_V2"
RECV_BOUND = "SGLANG_MORI_RECV_BOUND"
EP_V2_VALUES = (None, None, "1", "true", "0", "false", "No", "maybe")
RECV_BOUND_VALUES = (None, None, "1", "yes", "0", "bogus")


def eagle(steps: int) -> tuple[str, ...]:
    """EAGLE with the oracle model as its own draft."""
    return ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", str(steps),
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", str(steps + 1),
            "--speculative-draft-model-path", mc.model_dir())


def _environment(rng: Any) -> list[str]:
    words = []
    for name, values in ((EP_V2, EP_V2_VALUES), (RECV_BOUND, RECV_BOUND_VALUES)):
        value = rng.choice(values)
        if value is not None:
            words.append(f"{name}={value}")
    return words


def _attention_dp(argv: list[str]) -> list[str]:
    """The line with attention DP: TP 4 / DP 2 when it has no TP size, else DP 2 added."""
    if "--tp-size" not in argv:
        return [*argv, "--tp-size", "4", "--attn-dp-size", "2"]
    if "--attn-dp-size" not in argv:
        return [*argv, "--attn-dp-size", "2"]
    return argv


def draw(rng: Any) -> tuple[str, ...]:
    """An environment, then a mori target line (four in five) or a DeepEP low-latency target
    with a mori EAGLE draft, with attention DP, the DP LM head on most and a dense TP size
    (1 or the TP size) on most."""
    if rng.random() < 0.8:
        argv = _attention_dp(list(mc.draw(rng, "mori")))
    else:
        tp = rng.choice((2, 4, 8))
        argv = ["--moe-a2a-backend", "deepep", "--deepep-mode", "low_latency", "--tp-size",
                str(tp), "--attn-dp-size", str(rng.choice([d for d in (2, 4, 8) if tp % d == 0])),
                *eagle(rng.randint(1, 3)), "--speculative-moe-a2a-backend", "mori"]
    if rng.random() < 0.85:
        argv.append(dt.LM_HEAD)
    if rng.random() < 0.85:
        argv += [dt.FLAG, str(rng.choice((1, 1, dt.tp_size(tuple(argv)))))]
    return (*_environment(rng), *argv)


def verdict(argv: tuple[str, ...]) -> tuple[str, str]:
    """("agree" | "differ" | "other", the line and what differs): the dense-TP oracle's."""
    return dt.verdict(argv)




def draft_dispatch(env: tuple[str, ...], argv: tuple[str, ...], target: str, draft: str
                   ) -> tuple[str | None, tuple[int, str]]:
    """(SGLang's refusal or None, graphfit's (exit code, last `error:` line)) on a line whose
    MoE draft builds its dispatcher (`env`: `VAR=value` words): SGLang resolves the line
    under the environment and builds the draft inside the speculative a2a context as
    tests.oracle.test_sglang_draft_dispatch_oracle does; graphfit's CLI plans the pasted
    line, the words in front."""
    import contextlib
    import io
    from pathlib import Path

    from graphfit.cli.application import main
    from tests.oracle import sglang_draft_build as sdb
    from tests.oracle import sglang_oracle as so
    from tests.oracle import test_sglang_deepep_class_oracle as dc
    from tests.oracle import test_sglang_draft_dispatch_oracle as dd
    from tests.oracle.environ_patch import sglang_environ

    with sglang_environ(dict(word.split("=", 1) for word in env)):
        with dc._own_build_only():  # resolution alone: which worker SGLang picks
            r = so.resolve(argv, model=target)
        context = isinstance(r, so.Resolved) and sdb.enters_context(r.record)
        block = dd._draft_builder(getattr(r, "record", None), Path(draft), context)
        theirs = dc.sglang(Path(target), argv, True, block=block, shared_build=False)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", *env, "sglang", "serve",
                  "--model-path", target, *argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return theirs, (code, errors[-1] if errors else "")


# s70s: the switches `_mori_epv2_unsupported_reason` reads (arg_groups/moe_hook.py:807-831)
USE_AITER = "SGLANG_USE_AITER"
SDMA = "MORI_ENABLE_SDMA"
AITER_VALUES = (None, "1", "1", "true", "yes", "0", "bogus")
SDMA_VALUES = (None, None, None, "1", "true", "yes")
MORI_HEAD = ("--moe-a2a-backend", "mori", "--attn-dp-size", "2", "--enable-dp-lm-head",
             "--moe-dense-tp-size", "1")


@functools.cache
def v4_model_dir() -> str:
    """The oracle's Qwen3-MoE config.json named DeepseekV4ForCausalLM (`is_deepseek_v4`,
    configs/model_config.py:395-400), with the keys SGLang's ModelConfig reads off a V4 class
    (tests.oracle.sglang_dspark_compare.MLA_READ_FIELDS) and its experts as n_routed_experts."""
    import json
    import tempfile
    from pathlib import Path

    from tests.oracle import sglang_dspark_compare as kc
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs

    so.oracle()
    directory = sglang_stubs.write_moe_model_dir(
        Path(tempfile.mkdtemp(prefix="graphfit-sglang-v4-")) / "v4")
    data = json.loads((directory / "config.json").read_text())
    data.update({"architectures": ["DeepseekV4ForCausalLM"], **dict(kc.MLA_READ_FIELDS),
                 "n_routed_experts": data["num_experts"]})
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)


def draw_aiter(rng: Any) -> tuple[str, ...]:
    """A mori target under attention DP with the DP LM head and dense TP 1 (where EPv2 alone
    decides the gather, utils/common.py:4098-4107), the AITER / SDMA / EPv2 words drawn, a
    DeepSeek-V4 model on three lines in four (else the Qwen3-MoE one), float16 on some."""
    words = []
    for name, values in ((USE_AITER, AITER_VALUES), (SDMA, SDMA_VALUES),
                         (EP_V2, (None, None, None, None, "1", "0"))):
        value = rng.choice(values)
        if value is not None:
            words.append(f"{name}={value}")
    model = v4_model_dir() if rng.random() < 0.75 else mc.model_dir()
    dtype = ("--dtype", "float16") if rng.random() < 0.2 else ()
    return (*words, "--model-path", model, "--tp-size", str(rng.choice((2, 4, 8))), *MORI_HEAD,
            *dtype)


__all__ = ["EP_V2", "RECV_BOUND", "SDMA", "USE_AITER", "draft_dispatch", "draw", "draw_aiter",
           "eagle", "v4_model_dir", "verdict"]
