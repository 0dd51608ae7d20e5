"""The edge grid of vLLM configs every release's oracle comparison runs (plus generated ones),
and the aspect groups its tests report by."""

from __future__ import annotations

from tests.oracle import vllm_oracle as vo
from tests.oracle.vllm_oracle import Case


def _grid() -> list[Case]:
    cases: list[Case] = []
    add = cases.append
    for S in (1, 7, 33, 97, 255, 256, 257, 511, 512, 513, 1023, 1024):
        add(Case(S=S))
        add(Case(S=S, k=3, method="eagle"))
        add(Case(S=S, k=3, method="dflash"))
    for k in range(16):
        add(Case(S=33, k=k, method="eagle" if k else None))
        if k:
            add(Case(S=97, k=k, method="dflash"))
            add(Case(S=513, k=k, method="mtp", blackwell=True))
    for method in vo.METHODS:
        add(Case(S=33, k=3, method=method))
        add(Case(S=33, k=3, method=method, mode="FULL_DECODE_ONLY"))
    add(Case(S=33, k=3, method="dspark", dspark_fill_in=True))
    for mode in vo.MODES:
        for method, k in ((None, 0), ("eagle", 3), ("dflash", 7)):
            add(Case(S=33, k=k, method=method, mode=mode))
            add(Case(S=100, k=k, method=method, mode=mode, T=4099))
    # T not a multiple of 8, T < S*q (DFlash: active sequences capped at T // q)
    for S, T, k, method in ((33, 100, 3, "eagle"), (33, 101, 3, "dflash"), (64, 257, 7, "dflash"),
                            (64, 256, 7, "dflash"), (256, 1001, 15, "dflash"), (7, 9, 1, "mtp"),
                            (12, 13, 2, "draft_model")):
        add(Case(S=S, T=T, k=k, method=method))
        add(Case(S=S, T=T, k=k, method=method, mode="FULL"))
    for perf in ("interactivity", "throughput"):
        add(Case(S=33, performance_mode=perf))
        add(Case(S=33, k=3, method="eagle", performance_mode=perf))
        add(Case(S=5, T=20, performance_mode=perf))
    for S in (300, 600, 1024):
        add(Case(S=S, blackwell=True))
        add(Case(S=S, k=1, method="eagle3", blackwell=True))
    # user lists: unsorted, duplicated, above T, not multiples of q, all above T
    for sizes in ((4, 32, 2, 2), (8, 133, 140), (1, 3, 5, 7, 9), (16, 8, 8, 9000), (9000,),
                  (2,), (6, 10, 14), (200, 100)):
        add(Case(S=33, k=3, method="eagle", sizes=sizes))
        add(Case(S=33, sizes=sizes))
        add(Case(S=33, k=3, method="eagle", sizes=sizes, mode="PIECEWISE"))
    # user max below / equal / above the computed one (256 for S=33, k=3), with and without list
    for max_size in (1, 3, 4, 42, 200, 256, 300, 9000):
        add(Case(S=33, k=3, method="eagle", max_size=max_size))
        add(Case(S=33, max_size=max_size))
    add(Case(S=33, k=3, method="eagle", sizes=(8, 16), max_size=16))
    add(Case(S=33, k=3, method="eagle", sizes=(8, 16), max_size=17))
    add(Case(S=33, k=3, method="eagle", sizes=(8, 9000), max_size=16, T=100))
    # enforce_eager / NONE: no sizes, no validation of lists or max
    add(Case(S=33, k=3, method="eagle", enforce_eager=True, sizes=(5, 5), max_size=7))
    add(Case(S=33, k=3, method="eagle", mode="NONE", sizes=(5, 5), max_size=7))
    # max 0: vLLM's own "no graphs" under NONE / enforce_eager, an error with graphs
    add(Case(S=8, mode="NONE", max_size=0))
    add(Case(S=8, enforce_eager=True, max_size=0))
    add(Case(S=8, max_size=0))
    # T <= num_lookahead_tokens is rejected with each method's own lookahead (vllm.py:626-653)
    for method in vo.METHODS:
        k = 1 if method == "extract_hidden_states" else 3
        for T in (k, k + 1, k + 2):
            add(Case(S=1, T=T, k=k, method=method))
    add(Case(S=1, T=4, k=3, method="dspark", dspark_fill_in=True))
    add(Case(S=64, T=256, k=7, method="dspark"))
    add(Case(S=64, T=256, k=7, method="dflash", draft_support="UNIFORM_SINGLE_TOKEN_DECODE"))
    # configs vLLM rejects
    for bad in (Case(S=33, T=20), Case(S=1, T=3, k=3, method="eagle"),
                Case(S=1, T=4, k=3, method="dflash"), Case(S=1, T=3, k=3, method="ngram"),
                Case(S=8, sizes=(8, 16), max_size=8), Case(S=8, k=3, method="eagle", sizes=(2,)),
                Case(S=8, k=3, method="eagle", max_size=3), Case(S=8, mode="FULL",
                                                                 support="NEVER")):
        add(bad)
    # attention cudagraph support levels x modes
    for support in vo.SUPPORT_LEVELS:
        for mode in vo.MODES:
            add(Case(S=33, k=5, method="eagle", mode=mode, max_size=200, support=support))
            add(Case(S=33, mode=mode, support=support))
    add(Case(S=33, k=3, method="dflash", draft_support="UNIFORM_SINGLE_TOKEN_DECODE"))
    for max_model_len in (1000, 2048, 4097):  # block-table width alignment
        add(Case(S=8, T=8192, max_model_len=max_model_len))
    return list(dict.fromkeys(cases))


GRID = _grid()
GROUPS = {
    "errors": ("errors",),
    "ladders": ("config_ladder", "v1_ladder", "v2_ladder"),
    "v1-dispatch": ("v1_target_mixed", "v1_target_uniform", "v1_drafter"),
    "v2-dispatch": ("v2_target_mixed", "v2_target_uniform", "v2_drafter"),
    "capacity": ("v1_capacity", "v2_capacity", "v1_block_table", "unknown_support"),
    "buffers": ("v1_drafter_buffers", "v2_drafter_buffers"),
}


def case_id(case: Case) -> str:
    parts = [f"S{case.S}", f"T{case.T}", f"k{case.k}"]
    defaults = Case(S=case.S)
    for name in ("method", "mode", "sizes", "max_size", "performance_mode", "blackwell",
                 "enforce_eager", "support", "draft_support", "dspark_fill_in",
                 "max_model_len", "aux_layers", "split"):
        value = getattr(case, name)
        if value != getattr(defaults, name):
            parts.append(f"{name}={value}".replace(" ", ""))
    return "-".join(parts)

