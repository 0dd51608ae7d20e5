"""graphfit == SGLang 0.5.23 on `check_server_args`' serving-flag checks (issue 23, s68b;
graphfit.inputs.sglang_server_serving): workers (arg_groups/validation_hook.py:273-276), the
token buckets (:277-278, 385-437), priority scheduling (:281-306), the scheduling
conservativeness and metrics (:314-343), the gRPC port, GC threshold and KV canary
(:359-378), and `--min-free-slots-delay` under pipeline parallelism (:165-169), each refusal
naming SGLang's check, in SGLang's order among its other checks. SGLang: its resolution, then
its own `check_server_args`; graphfit: its CLI with the GPU named."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_server_serving as ss  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402
from tests.oracle import sglang_server_serving_oracle as sso  # noqa: E402

PDMUX = "--enable-pdmux"
FIXED: list[tuple[tuple[str, ...], str | None]] = [
    # (line after --model-path, the lines of SGLang's check refusing it)
    (("--tokenizer-worker-num", "0"), "273"),
    (("--mm-io-worker-num", "-1"), "276"),
    (("--prompt-tokens-buckets", "tse", "2", "1", "3"), "277-278, 385-437"),
    (("--generation-tokens-buckets", "custom", "1", "2"), None),
    (("--enable-priority-scheduling", "--schedule-policy", "lpm"), "281-287"),
    (("--enable-priority-scheduling", "--schedule-policy", "lof"), None),
    (("--retraction-policy", "priority"), "303-306"),
    (("--schedule-conservativeness", "-1"), "314-316"),
    (("--export-metrics-to-file",), "340-343"),
    (("--grpc-port", "30000"), "359-362"),
    (("--grpc-port", "30000", "--grpc-mode"), None),
    (("--gc-threshold", "1", "2", "3", "4"), "369-373"),
    (("--kv-canary-sweep-interval", "5"), "375-378"),
    (("--min-free-slots-delay", "3", "--pp-size", "2"), "165-169"),
    (("--min-free-slots-delay", "3"), None),  # only under pipeline parallelism
    # SGLang's order: PD multiplexing (:249-262) before the workers, the workers before the
    # metrics, two-batch overlap (:346) before the gRPC port
    ((PDMUX, "--tokenizer-worker-num", "0"), "253-255"),
    (("--schedule-conservativeness", "-1", "--tokenizer-worker-num", "0"), "273"),
    (("--enable-two-batch-overlap", "--grpc-port", "30000"), "756-772"),
]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return sao.targets(tmp_path_factory.mktemp("server-serving"))


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    from tests.oracle import sglang_lora_runner_oracle as lro

    wrong = []
    for argv, where in FIXED:
        theirs, at_check = lro.sglang(targets["dense"], argv, {})
        code, said = sao.graphfit(targets["dense"], argv, {})
        if (sao.verdict(theirs, at_check, code, said) != "agree"
                or at_check != (where is not None)
                or (where is not None and f"validation_hook.py:{where})" not in said)):
            wrong.append(f"{argv}: SGLang {theirs}; graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(targets: dict[str, Path]) -> None:
    rng = random.Random(68)
    wrong, refused = [], 0
    for _ in range(10):
        name, env, argv = sso.draw(rng)
        said, line = sao.compare(targets[name], argv, env)
        refused += "SGLang None" not in line
        if said != "agree":
            wrong.append(f"{said}: {name} {line}")
    assert not wrong, "\n".join(wrong)
    assert 3 <= refused <= 9  # the draw reaches both answers


@pytest.mark.parametrize(("rule", "line"), [
    ("pipeline", 13), ("workers", 0), ("workers", 4), ("metrics", 7), ("ports", 9),
    ("ports", 12)])
def test_planted_rule_off_is_caught(targets: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                    rule: str, line: int) -> None:
    """Plants: each slot's rule off (graphfit plans what SGLang refuses) is caught."""
    monkeypatch.setattr(ss, rule, lambda values: None)
    argv, _ = FIXED[line]
    said, _ = sao.compare(targets["dense"], argv, {})
    assert said == "differ"
