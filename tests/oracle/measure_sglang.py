"""How often graphfit agrees with SGLang 0.5.23, per aspect, on a large generated set.

    PYTHONPATH=. python tests/oracle/measure_sglang.py [N] [SEED]   # default 1500 configs

Prints a markdown agreement table and every class of difference with its smallest
reproducer (command line, SGLang's answer, graphfit's answer). Configs come from the space of
test_sglang_oracle.command_lines, drawn with `random` so the script needs no hypothesis; the
draw is kept as it was when issue 10 measured its "before" figures, so a seed gives the same
command lines (tests/oracle/SGLANG_AGREEMENT.md). The model-level aspects are measured for the
command lines SGLang starts with.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so

ALGOS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM")
GPUS = (16, 24, 48, 80, 141, 192, None)


def draw(rng: random.Random) -> tuple[tuple[str, ...], float | None]:
    argv: list[str] = []
    if rng.random() < 0.8:
        s = rng.choice((rng.randint(1, 64), rng.randint(1, 1024), rng.choice((1, 7, 33, 97))))
        argv += ["--max-running-requests", str(s)]
    if rng.random() < 0.5:
        algo = rng.choice(ALGOS)
        argv += ["--speculative-algorithm", algo]
        if algo != "NGRAM" and rng.random() < 0.6:
            steps, topk = rng.randint(1, 8), rng.choice((1, 1, 2, 4, 8))
            drafts = steps + 1 if topk == 1 else rng.randint(2, 32)
            argv += ["--speculative-num-steps", str(steps), "--speculative-eagle-topk",
                     str(topk), "--speculative-num-draft-tokens", str(drafts)]
    graphs = rng.choice(("default", "default", "max_bs", "bs", "padding_off", "off", "old"))
    if graphs == "max_bs":
        argv += ["--cuda-graph-max-bs-decode", str(rng.randint(1, 600))]
    elif graphs == "bs":
        sizes = rng.sample(range(1, 300), rng.randint(1, 6))
        argv += ["--cuda-graph-bs-decode", *map(str, sizes)]
    elif graphs == "padding_off":
        argv.append("--disable-cuda-graph-padding")
    elif graphs == "off":
        argv.append(rng.choice(("--disable-decode-cuda-graph", "--disable-cuda-graph")))
    elif graphs == "old":
        argv += rng.choice((["--cuda-graph-max-bs", str(rng.randint(1, 512))],
                            ["--cuda-graph-bs", "1", "2", "4"]))
    tp = rng.choice((1, 1, 1, 2, 4, 8))
    if tp > 1:
        argv += [rng.choice(("--tp", "--tp-size")), str(tp)]
        if rng.random() < 0.4:
            argv += ["--attn-dp-size", str(rng.choice([d for d in (2, 4, 8) if tp % d == 0]))]
        elif rng.random() < 0.2:
            argv += ["--attn-cp-size", "2"]
    if rng.random() < 0.25:
        argv += so.tbo(argv)
    return tuple(argv), rng.choice(GPUS)


_NUM = re.compile(r"\d+")
MISSING: dict[str, set[str]] = defaultdict(set)


def classify(d: sc.Difference, sg: sc.SglangAnswer) -> str:
    text = d.detail
    if d.aspect == "acceptance":
        m = re.search(r"No such option: (--[\w-]+)", text)
        if m:
            return f"acceptance: graphfit lacks flag {m.group(1)}"
        if text.startswith("SGLang rejects"):
            reason = text.split("(", 1)[1]
            if "ambiguous option" in reason:
                return "acceptance: SGLang rejects the old flag as ambiguous; graphfit accepts"
            return f"acceptance: SGLang rejects ({_NUM.sub('N', reason[:70])}); graphfit accepts"
        reason = text.split("(", 1)[-1]
        if "needs k >=" in reason:
            return "acceptance: graphfit rejects a speculative algorithm without " \
                   "--speculative-num-steps (SGLang defaults it)"
        return f"acceptance: graphfit rejects: {_NUM.sub('N', reason[:90])}"
    if d.aspect == "translated_acceptance":
        return "model: graphfit rejects SGLang's resolved values: " + \
            _NUM.sub("N", text.split("error: ", 1)[-1][:90])
    if d.aspect.endswith("_buffers"):
        name = text.split(" ", 1)[0]
        if "no such buffer" in text:
            component, buffer = name.split(".", 1)
            MISSING[component].add(buffer)
            return f"buffers: graphfit lacks {component} buffers (listed below)"
        kind = "dtype" if "dtype" in text else "shape"
        return f"buffers: {name.rstrip(':')} {kind}" + \
            (f" ({text.split(': ', 1)[1]})" if kind == "dtype" else "")
    if d.aspect in ("fills", "components"):
        return f"{d.aspect}: {_NUM.sub('N', text)}"
    # ladders and padding: attribute to the config feature that makes SGLang differ
    r = sg.resolved
    runs = sg.runners or {}
    tags = []
    if any(run.alignment > 1 for run in runs.values()):
        tags.append("alignment filter")
    if r.disable_cuda_graph_padding:
        tags.append("padding disabled")
    if any(a.startswith("--cuda-graph-bs-decode") for a in r.argv):
        tags.append("explicit bs list")
    explicit = any(a.startswith(("--cuda-graph-max-bs-decode", "--cuda-graph-bs-decode",
                                 "--cuda-graph-config")) for a in r.argv)
    if not explicit and r.decode_max_bs != min(256, r.max_running_requests or 256):
        tags.append("GPU-memory default max_bs")
    if not tags:
        tags.append("other")
    return f"{d.aspect}: {' + '.join(tags)}"


CITES = {
    "acceptance: graphfit lacks flag": "arg_groups/fields (ServerArgs.add_cli_args, "
                                       "server_args.py:372)",
    "acceptance: SGLang rejects the old flag": "argparse prefix matching over "
                                               "--cuda-graph-max-bs-{decode,prefill}",
    "acceptance: graphfit rejects: max_num_seqs": "memory_hook.py:182; "
                                                  "kv_cache_configurator.py:3119",
    "alignment filter": "base_cuda_graph_runner.py:83-104; utils/common.py:4163-4175",
    "GPU-memory default": "memory_hook.py:89-188",
    "padding disabled": "cuda_graph_hook.py:507-508; decode_cuda_graph_runner.py:886-890",
    "explicit bs list": "memory_hook.py:202-207; base_cuda_graph_runner.py:92-102",
    "buffers:": "runner_utils/buffers.py:157-245; eagle_draft_cuda_graph_runner.py:178-262; "
                "eagle_draft_extend_cuda_graph_runner.py:154-265",
    "fills:": "cuda_graph_buffer_registry.py:630-681; eagle_draft_cuda_graph_runner.py:590-606",
    "components:": "eagle_worker_v2.py:476-600",
}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    rng = random.Random(seed)
    t0 = time.time()
    total: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    classes: dict[str, tuple[tuple, sc.Difference]] = {}
    counts: Counter[str] = Counter()
    seen_short: dict[str, bool] = defaultdict(bool)
    for _ in range(n):
        argv, gb = draw(rng)
        sg = sc.sglang(argv, gb)
        cli = sc.compare_cli(argv, gb)
        aspects = dict(cli)
        if sg.rejected is None:
            aspects.update(sc.compare_model(sg))
        for aspect, diffs in aspects.items():
            total[aspect] += 1
            agree[aspect] += not diffs
            for d in diffs:
                key = classify(d, sg)
                counts[key] += 1
                seen_short[key] |= d.short
                size = (len(argv), sum(int(x) for x in argv if x.isdigit()))
                if key not in classes or size < classes[key][0][0]:
                    classes[key] = ((size, argv, gb), d)
    print(f"{n} generated configs (seed {seed}) in {time.time() - t0:.0f} s\n")
    print("| aspect | agree | compared | rate |\n| --- | ---: | ---: | ---: |")
    for aspect in total:
        print(f"| {aspect} | {agree[aspect]} | {total[aspect]} | "
              f"{100 * agree[aspect] / total[aspect]:.1f}% |")
    print("\n## Difference classes (count, SHORT, smallest reproducer)\n")
    for key in sorted(classes):
        (_, argv, gb), d = classes[key]
        cite = next((v for k, v in CITES.items() if k in key), "")
        print(f"- **{key}** x{counts[key]}{' SHORT' if seen_short[key] else ''}\n"
              f"  `sglang serve {' '.join(argv)}` @ {gb} GB: {d.detail}"
              + (f"\n  SGLang: {cite}" if cite else ""))
    for component, names in sorted(MISSING.items()):
        print(f"\nBuffers SGLang allocates in `{component}` that graphfit does not plan: "
              f"{', '.join(sorted(names))}")


if __name__ == "__main__":
    main()
