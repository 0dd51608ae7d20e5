"""Lines with `--enable-unified-memory` and a speculative draft (issue 23 s37m): SGLang 0.5.23's
own resolution (`handle_unified_memory_pool`, arg_groups/kv_cache_hook.py:528-718, and the
memory hook's post-capture predicate, overrides.py:1826-1836) against graphfit's fraction or
refusal for the same pasted line (shared by tests/oracle/test_sglang_unified_memory_oracle.py
and tests/oracle/measure_sglang_unified_memory.py). The draft is the target's own directory:
SGLang reads its config.json for the Gemma4 promotion (speculative_hook.py:86-116)."""

from __future__ import annotations

from tests.oracle import sglang_post_capture_oracle as pc

BASE = ("--enable-unified-memory", "--cuda-graph-backend-prefill", "breakable",
        "--max-running-requests", "48")
# the target classes: hybrid-SWA (a listed class, an opt-in Mistral) and a plain Llama
MODELS = ("gemma4", "swa_optin", "llama")
ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "DFLASH", "STANDALONE", "NGRAM")


def spec_argv(name: str, algorithm: str | None, topk: int = 1) -> tuple[str, ...]:
    """The draft flags: a chain of 3 steps (`topk` wide) for the EAGLE family and STANDALONE,
    DFLASH's defaults, NGRAM without a draft."""
    if algorithm is None:
        return ()
    argv: tuple[str, ...] = ("--speculative-algorithm", algorithm)
    if algorithm == "NGRAM":
        return argv
    argv += ("--speculative-draft-model-path", pc.model_dir(name))
    if algorithm != "DFLASH":
        argv += ("--speculative-num-steps", "3", "--speculative-eagle-topk", str(topk),
                 "--speculative-num-draft-tokens", str(4 if topk == 1 else 8))
    return argv


def line(name: str, algorithm: str | None, topk: int = 1,
         extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    return (*BASE, *spec_argv(name, algorithm, topk), *extra)


def compare(name: str, argv: tuple[str, ...], value: str | None, gb: float = 80.0
            ) -> tuple[str | None, float | None]:
    """(the disagreement or None, SGLang's fraction or None where it refuses)."""
    theirs = pc.sglang_fraction(argv, gb, name, value)
    ours = pc.graphfit_fraction(pc.graphfit_line(argv, name, value), gb)
    if theirs is None:
        return (None if isinstance(ours, str) else f"SGLang refuses, graphfit {ours}"), None
    if isinstance(ours, str):
        return f"graphfit refuses: {ours[:120]}", theirs[0]
    return pc.disagreement(theirs[0], ours), theirs[0]
