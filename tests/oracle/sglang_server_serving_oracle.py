"""SGLang 0.5.23's `check_server_args` on the serving flags graphfit reads only for it (issue 23,
s68b; not a test; graphfit.inputs.sglang_server_serving): workers, metrics buckets, priority
scheduling, metrics labels / export, gRPC port, GC threshold, KV canary,
`--min-free-slots-delay` under pipeline parallelism and HiSparse's model class
(graphfit.inputs.sglang_hisparse_class), drawn over the server-args oracle's lines
(tests.oracle.sglang_server_args_oracle.draw: nodes, PP, chunk / page, PD multiplexing,
speculation...), so a serving refusal meets SGLang's other checks in its order. Both sides:
sglang_server_args_oracle.compare (SGLang's resolution and whole `check_server_args`, beside
graphfit's CLI on the pasted line; a refusal agrees when graphfit names SGLang's check)."""

from __future__ import annotations

import random

from tests.oracle import sglang_server_args_oracle as sao

# (flags, weight 1 each): one serving fault, or a setting SGLang accepts beside it
SERVING: tuple[tuple[str, ...], ...] = (
    ("--tokenizer-worker-num", "0"), ("--detokenizer-worker-num", "0"),
    ("--mm-processor-worker-num", "-1"), ("--mm-io-worker-num", "-1"),
    ("--tokenizer-worker-num", "2"),
    ("--prompt-tokens-buckets", "tse", "2", "1.5", "3"),
    ("--prompt-tokens-buckets", "tse", "2", "1", "3"),
    ("--generation-tokens-buckets", "custom", "1", "1"),
    ("--generation-tokens-buckets", "custom", "1", "x"),
    ("--generation-tokens-buckets", "default", "2"),
    ("--prompt-tokens-buckets", "linear"), ("--prompt-tokens-buckets", "default"),
    ("--enable-priority-scheduling", "--schedule-policy", "lpm"),
    ("--enable-priority-scheduling", "--schedule-policy", "lof"),
    ("--enable-priority-scheduling",), ("--retraction-policy", "priority"),
    ("--schedule-conservativeness", "-0.5"), ("--schedule-conservativeness", "0.3"),
    ("--tokenizer-metrics-allowed-custom-labels", "a", "--tokenizer-metrics-custom-labels-header",
     ""),
    ("--tokenizer-metrics-allowed-custom-labels", "a"),
    ("--export-metrics-to-file",), ("--export-metrics-to-file", "--export-metrics-to-file-dir",
                                     "/tmp"),
    ("--grpc-port", "30000"), ("--grpc-port", "30000", "--grpc-mode"),
    ("--grpc-port", "40000", "--port", "40000"), ("--grpc-port", "30001"),
    ("--gc-threshold", "1", "2", "3", "4"), ("--gc-threshold", "700"),
    ("--kv-canary-sweep-interval", "5"), ("--kv-canary-sweep-interval", "5", "--kv-canary",
                                          "log"),
    ("--min-free-slots-delay", "3"), ("--min-free-slots-delay", "3", "--pp-size", "2"),
    # HiSparse's model-class assert (hisparse_hook.py:100-107) on the Llama / Qwen3-MoE
    # targets, at :312 between the workers and the metrics
    ("--enable-hisparse", "--disable-radix-cache"), ("--enable-hisparse",),
)


def draw(rng: random.Random) -> tuple[str, dict[str, str], tuple[str, ...]]:
    """(target, environment, line): a server-args oracle line plus one or two serving
    settings."""
    name, env, argv = sao.draw(rng)
    extra: list[str] = []
    for _ in range(rng.choice((1, 1, 2))):
        extra += rng.choice(SERVING)
    return name, env, (*argv, *extra)
