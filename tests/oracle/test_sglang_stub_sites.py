"""Every oracle call site that runs SGLang code does so on the fake GPU (issue 23, s50o).

A server calls SGLang with a GPU present. SGLang caches what it learns of the device
(`is_cuda` & co., lru_cache, utils/common.py:157-159; `_is_cuda = is_cuda()` bound at import,
layers/quantization/fp8_utils.py:64), so one oracle call made under bare
`sglang_stubs.stubbed()` (stubs on the import path, torch reporting no CUDA) can change every
later line of the process: s48a's order-dependent failure came from a `get_config` run that
way (tests/oracle/test_sglang_stub_platform.py replays it on purpose, in a subprocess).

This module reads the oracle's sources (no SGLang import; well under a second): a `with` that
enters the no-argument `stubbed()` must also enter `fake_cuda(...)` or `published(...)` (which
runs under `fake_cuda`), or sit inside one. Import-only blocks too (issue 23, s55x): a module's
first import runs its top-level device probes once for the process (`_device_sm =
get_device_sm()`, models/deepseek_common/utils.py:49), so they use `sglang_stubs.imports()`,
which keeps an enclosing fake GPU or enters the default one.
"""

from __future__ import annotations

import ast
from pathlib import Path

ORACLE = Path(__file__).resolve().parent
FAKES = frozenset({"fake_cuda", "published", "imports"})


def _called(node: ast.expr) -> tuple[str | None, int]:
    """(the called name, its number of arguments) of a `with` item, or (None, 0)."""
    if not isinstance(node, ast.Call):
        return None, 0
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name, len(node.args) + len(node.keywords)


def bare_sites(source: str, filename: str) -> list[str]:
    """`filename:line` of each `with` in `source` that imports or runs SGLang code under bare
    stubs (torch reporting no CUDA)."""
    found: list[str] = []

    def visit(node: ast.AST, faked: bool) -> None:
        if isinstance(node, ast.With):
            calls = [_called(item.context_expr) for item in node.items]
            names = {name for name, _ in calls}
            bare = any(name == "stubbed" and args == 0 for name, args in calls)
            if bare and not faked and not names & FAKES:
                found.append(f"{filename}:{node.lineno}")
            faked = faked or bool(names & FAKES)
        for child in ast.iter_child_nodes(node):
            visit(child, faked)

    visit(ast.parse(source), False)
    return found


def test_no_oracle_site_runs_sglang_under_bare_stubs() -> None:
    texts = {path.name: path.read_text() for path in sorted(ORACLE.glob("*.py"))
             if path.name != "sglang_stubs.py"}
    sites = [site for name, text in texts.items() if "stubbed()" in text  # parse only those
             for site in bare_sites(text, name)]
    assert sites == [], f"run these under sglang_stubs.fake_cuda(...): {sites}"


def test_the_scan_sees_a_bare_call_and_passes_the_faked_ones() -> None:
    """The scan is not vacuous: a bare call or a bare import is reported; the same under
    `fake_cuda`, beside `published`, nested in either, or under `imports()` is not."""
    bare = "with ss.stubbed():\n    get_config(path)\n"
    assert bare_sites(bare, "x.py") == ["x.py:1"]
    assert bare_sites("def f():\n    with ss.stubbed():\n        from sglang.srt import x\n",
                      "x.py") == ["x.py:2"]
    for fine in ("with ss.fake_cuda():\n    get_config(path)\n",
                 "with ss.stubbed(), so.published(r):\n    get_config(path)\n",
                 "with so.published(r):\n    with ss.stubbed():\n        get_config(path)\n",
                 "with ss.imports():\n    from sglang.srt import x\n",
                 "with ss.fake_cuda():\n    with ss.stubbed():\n        from sglang.srt import x\n",
                 "with stubbed(OTHER_STUBS):\n    run()\n"):  # the args oracles' own stubs
        assert bare_sites(fine, "x.py") == [], fine


def test_imports_keeps_an_enclosing_fake_gpu() -> None:
    """`imports()` alone reports the default fake GPU; inside a `fake_cuda` of another
    capability it keeps that one (a default fake there would report sm90 to an sm100 line's
    imports and cache it); torch's own answer comes back after."""
    import torch

    from tests.oracle import sglang_stubs

    real = torch.cuda.is_available()
    with sglang_stubs.imports():
        assert torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)
    with sglang_stubs.fake_cuda(capability=(10, 0)):
        with sglang_stubs.imports():
            assert torch.cuda.get_device_capability() == (10, 0)
        assert torch.cuda.get_device_capability() == (10, 0)
    assert torch.cuda.is_available() == real
