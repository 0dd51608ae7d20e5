"""`python -m graphfit.integrations.sglang` on SGLang 0.5.23's own argument pipeline (CPU).

SGLang's `load_plugins` and `prepare_server_args` run as in `python -m sglang.launch_server`;
the start step is injected (no server starts). A safe config starts with one SAFE line; a
buffer shrunk to one row below what SGLang's code needs (monkeypatched into the rows the
engine allocates) is refused, naming it, and nothing starts.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from graphfit.integrations import sglang as gs
from tests.helpers import ROOT

ARGS = ["--model-path", "m", "--max-running-requests", "16", "--speculative-algorithm",
        "EAGLE", "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4", "--speculative-draft-model-path", "d"]


def run(sa: Any, argv: list[str], environ: dict[str, str]) -> tuple[int, list[Any], list[str]]:
    started: list[Any] = []
    lines: list[str] = []
    with sa.sglang_env():
        code = gs.main(argv, start=started.append, environ=environ, out=lines.append)
    return code, started, lines


def test_safe_config_starts_sglang_with_one_safe_line(sa: Any) -> None:
    code, started, lines = run(sa, ARGS, {})
    assert code == 0 and len(started) == 1, lines
    assert type(started[0]).__name__ == "ServerArgs"  # SGLang's own object is what starts
    assert len(lines) == 1 and lines[0].startswith("graphfit: SAFE:")


def test_shrunk_buffer_is_refused_and_nothing_starts(sa: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    real = gs.engine_capacities

    def shrunk(p: Any) -> dict[str, int]:
        caps = real(p)
        needed = next(b.engine_rows for b in p.components["drafter"].buffers
                      if b.name == "positions")
        return {**caps, "drafter.positions": needed - 1}

    monkeypatch.setattr(gs, "engine_capacities", shrunk)
    code, started, lines = run(sa, ARGS, {})
    assert code == 2 and not started
    assert "UNSAFE" in lines[0] and "drafter.positions" in lines[0]
    code, started, lines = run(sa, ARGS, {"GRAPHFIT_SGLANG": "warn"})
    assert code == 0 and len(started) == 1 and "UNSAFE" in lines[0]


def test_unknown_size_and_bad_mode(sa: Any) -> None:
    code, started, lines = run(sa, ["--model-path", "m"], {})
    assert code == 2 and not started and lines[-1].startswith("error: graphfit cannot check")
    assert len(lines[-1]) <= 200
    code, started, lines = run(sa, ARGS, {"GRAPHFIT_SGLANG": "strict"})
    assert code == 2 and not started and "check, warn" in lines[0]


def test_sglang_loads_the_plugin_and_checks_server_args_as_built(
        sa: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata as md

    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "entry-points"]["sglang.srt.plugins"]
    points = md.EntryPoints([md.EntryPoint(name, value, "sglang.srt.plugins")
                             for name, value in declared.items()])
    with sa.sglang_env():
        import sglang.srt.plugins as plugins
        from sglang.srt.plugins.hook_registry import HookRegistry

        monkeypatch.setattr(plugins, "entry_points", lambda group: points if group ==
                            "sglang.srt.plugins" else md.EntryPoints([]))
        import sglang.srt.server_args as server_args_module

        # restored after the test: HookRegistry patches the function where it lives
        monkeypatch.setattr(server_args_module, "prepare_server_args",
                            server_args_module.prepare_server_args)
        monkeypatch.setattr(gs, "_launcher_active", False)
        monkeypatch.setenv("GRAPHFIT_SGLANG", "check")
        HookRegistry.reset()
        try:
            loaded = plugins.load_plugins_by_group("sglang.srt.plugins")
            assert set(loaded) == {"graphfit"}
            loaded["graphfit"][0]()
            HookRegistry.apply_hooks()
            checked: list[Any] = []
            real = gs.check_server_args
            monkeypatch.setattr(gs, "check_server_args",
                                lambda args: checked.append(args) or real(args))
            # SGLang's own parse, through the patched function as launch_server calls it
            built = server_args_module.prepare_server_args(list(ARGS))
            assert checked and checked[-1] is built
            real_caps = gs.engine_capacities

            def shrunk(p: Any) -> dict[str, int]:
                needed = next(b.engine_rows for b in p.components["drafter"].buffers
                              if b.name == "positions")
                return {**real_caps(p), "drafter.positions": needed - 1}

            monkeypatch.setattr(gs, "engine_capacities", shrunk)
            with pytest.raises(gs.UnsafeServerArgsError, match=r"drafter\.positions"):
                server_args_module.prepare_server_args(list(ARGS))
        finally:
            HookRegistry.reset()
            # the registry also patched modules that imported the function by name
            for name, module in list(sys.modules.items()):
                if not name.startswith("sglang") or module is server_args_module:
                    continue
                value = vars(module).get("prepare_server_args")
                if callable(value) and getattr(value, "__wrapped__", None) is not None:
                    monkeypatch.setattr(module, "prepare_server_args", value.__wrapped__)
