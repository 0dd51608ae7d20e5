"""TensorRT-LLM citations have the project's form: `path@commit:line` or `path@commit:first-last`.

TensorRT-LLM has no wheel to extract, so its statements cite the stored copies of
github.com/NVIDIA/TensorRT-LLM that tests/oracle/trtllm_reference.py pins (`PINS`). The lines
were counted from those copies, read from offset 0. This test reads graphfit/ and docs/ (no
network, no engine) and finds every TensorRT-LLM citation: an `@commit` whose digits start a
pinned commit, or the name of a pinned file (`llm_args.py`, `model_engine.py`, ...). Each must
sit inside a well-formed `tensorrt_llm/...@<10+ hex>:<line>[-<line>]` whose path and commit are
a pin. The older form (file, commit, function and a character window, or no line at all) is
allowed only where `OLD_FORM_LEFT` counts it: those are the citations whose lines still need
pages that were not counted. The counts must match exactly, so a converted citation lowers its
count and a new old-form citation fails.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from tests.oracle import trtllm_reference as ref

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("graphfit", "docs")
SUFFIXES = frozenset({".py", ".md", ".json", ".yaml", ".yml", ".toml", ".txt"})

WELL_FORMED = re.compile(
    r"(?P<path>(?:cpp/)?tensorrt_llm/[\w/.-]+\.(?:py|cpp|h))@(?P<commit>[0-9a-f]{10,40})"
    r":(?P<first>\d+)(?:-(?P<last>\d+))?")
COMMIT = re.compile(r"@ ?(?P<hex>[0-9a-f]{7,40})\b")
FILE_NAME = re.compile(
    r"\b(?:llm_args|model_engine|cuda_graph_runner|eagle3_dynamic_tree|mtp_dynamic_tree"
    r"|piecewise_optimizer|microBatchScheduler)\.(?:py|cpp)\b"
    r"|\b(?:engine/cuda_graph|runners/common|decoder/runner|runners/encoder|commands/serve"
    r"|attention_backend/interface|distributed/moe_alltoall)\.py\b")

# Old-form TensorRT-LLM citations still present, per file (a citation that names both a file
# and a commit apart counts twice): none. The last one (the coverage doc's "Left" note on an
# older cuda_graph_runner.py whose commit the index does not give) now cites the pinned file
# by its counted lines and describes the older version without a file or commit to cite.
OLD_FORM_LEFT: dict[str, int] = {}


def _pinned_commits() -> tuple[str, ...]:
    return tuple(commit for _, commit in ref.PINS.values())


def _is_pinned(prefix: str) -> bool:
    return any(commit.startswith(prefix) for commit in _pinned_commits())


def _scanned_files() -> list[Path]:
    files = []
    for top in SCANNED:
        files += [p for p in sorted((ROOT / top).rglob("*"))
                  if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts]
    return files


def _citations(text: str) -> tuple[list[re.Match[str]], list[tuple[int, str]]]:
    """(well-formed citations, (offset, excerpt) of every TensorRT-LLM citation outside one)."""
    good = list(WELL_FORMED.finditer(text))
    spans = [(m.start(), m.end()) for m in good]

    def inside(pos: int) -> bool:
        return any(start <= pos < end for start, end in spans)

    old: list[tuple[int, str]] = []
    for m in COMMIT.finditer(text):
        if text[max(0, m.start() - 4):m.start()] == "main":  # a version label, not a citation
            continue
        if _is_pinned(m.group("hex")) and not inside(m.start()):
            old.append((m.start(), text[max(0, m.start() - 40):m.end()]))
    for m in FILE_NAME.finditer(text):
        if not inside(m.start()) and not any(abs(pos - m.end()) <= 2 for pos, _ in old):
            old.append((m.start(), text[m.start():m.end() + 20]))
    return good, old


def test_well_formed_citations_name_a_pinned_file_and_commit() -> None:
    pins = {(path, commit) for path, commit in ref.PINS.values()}
    bad = []
    count = 0
    for path in _scanned_files():
        good, _ = _citations(path.read_text(encoding="utf-8"))
        for m in good:
            count += 1
            first, last = int(m.group("first")), int(m.group("last") or m.group("first"))
            known = any(m.group("path") == pin_path and commit.startswith(m.group("commit"))
                        for pin_path, commit in pins)
            if not known or not 1 <= first <= last:
                bad.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert count > 0, "no TensorRT-LLM citation found: the scan is broken"
    assert not bad, ("citations whose path@commit is not in trtllm_reference.PINS or whose "
                     f"line range is empty: {bad}")


def _pin_of(path: str, commit: str) -> str | None:
    return next((key for key, (pin_path, pin_commit) in ref.PINS.items()
                 if pin_path == path and pin_commit.startswith(commit)), None)


def test_cited_lines_were_counted() -> None:
    """A cited line lies in the part of the pinned copy whose lines were counted
    (`trtllm_reference.COUNTED_TO`): a typo or a line read off another copy fails here."""
    assert set(ref.COUNTED_TO) == set(ref.PINS)
    beyond = []
    for path in _scanned_files():
        good, _ = _citations(path.read_text(encoding="utf-8"))
        for m in good:
            key = _pin_of(m.group("path"), m.group("commit"))
            last = int(m.group("last") or m.group("first"))
            if key is None or last > ref.COUNTED_TO[key]:
                beyond.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    for fact, (_, last) in ref.LINES.items():
        key = ref.CITES[fact][0]
        if last > ref.COUNTED_TO[key]:
            beyond.append(f"LINES[{fact!r}] = {ref.LINES[fact]} past line "
                          f"{ref.COUNTED_TO[key]} of {key}")
    assert not beyond, f"lines cited past the counted part of their copy: {beyond}"


def test_no_new_old_form_citation() -> None:
    found: Counter[str] = Counter()
    where: dict[str, list[str]] = {}
    for path in _scanned_files():
        _, old = _citations(path.read_text(encoding="utf-8"))
        if old:
            rel = path.relative_to(ROOT).as_posix()
            found[rel] = len(old)
            where[rel] = [excerpt for _, excerpt in old]
    more = {f: (n, where[f]) for f, n in found.items() if n > OLD_FORM_LEFT.get(f, 0)}
    fewer = {f: n for f, n in OLD_FORM_LEFT.items() if found.get(f, 0) < n}
    assert not more, ("TensorRT-LLM citations without `path@commit:line` (write "
                      f"tensorrt_llm/...py@<commit>:<first>-<last>): {more}")
    assert not fewer, f"citations converted: lower OLD_FORM_LEFT to the counts found: {fewer}"


def test_reference_facts_cite_lines_or_are_listed_uncounted() -> None:
    assert set(ref.LINES) <= set(ref.CITES)
    assert set(ref.CITES) == set(ref.LINES) | ref.UNCOUNTED
    assert not set(ref.LINES) & ref.UNCOUNTED
    assert not ref.UNCOUNTED, "every fact cites its lines"
    for fact, (first, last) in ref.LINES.items():
        assert 1 <= first <= last, fact
        cited = ref.cite_fact(fact)
        assert WELL_FORMED.match(cited), cited
        assert "chars" not in cited, cited
