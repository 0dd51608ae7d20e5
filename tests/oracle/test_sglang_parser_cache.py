"""The oracle's cached `sglang serve` parser (tests/oracle/sglang_parser_cache.py) against the
parser SGLang builds fresh for each line (server_args.py:679-680).

The same command line goes through SGLang's whole `prepare_server_args` twice: once with the
cached parser, once with `ServerArgs.add_cli_args` run on a new parser (`uncached`). Both must
give the same ServerArgs (every field, the launch command) or the same exit and stderr. Lines:
the agreement measure's drawn lines (tests/oracle/measure_sglang.py's `draw`), a `--config`
file, and lines drawn from the parser's own arguments (any flag, alias or deprecated spelling,
values inside and outside their choices, numbers and non-numbers). Then the cache's keys:
SGLang's token-oracle variable (server_args.py:357-358), a choices list extended by SGLang's
plugin hook (arg_groups/choices.py:283, the list fields/exec_.py:560 names), a parser that
already holds arguments, and defaults no two lines share (arg_utils.py:285-292).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.oracle.paths import require

require("sglang")

import msgspec  # noqa: E402

from tests.oracle import measure_sglang, sglang_parser_cache, sglang_stubs  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402


def _outcome(argv: list[str]) -> tuple[Any, ...]:
    """What SGLang's prepare_server_args makes of the line: the record's fields and launch
    command, or the exception (SystemExit's code) with everything written to stderr."""
    o = so.oracle()
    err = io.StringIO()
    with sglang_stubs.fake_cuda(81920.0):
        try:
            with contextlib.redirect_stderr(err):
                record = o.server_args.prepare_server_args(argv)
        except SystemExit as exc:
            return ("exit", exc.code, err.getvalue())
        except Exception as exc:  # the record's own checks at construction
            return ("raised", type(exc).__name__, str(exc), err.getvalue())
    fields = {f.name: getattr(record, f.name) for f in msgspec.structs.fields(type(record))}
    return ("record", repr(fields), record._launch_command, err.getvalue())


def _both(argv: list[str]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    cached = _outcome(argv)
    with sglang_parser_cache.uncached():
        fresh = _outcome(argv)
    return cached, fresh


def _differs(cached: tuple[Any, ...], fresh: tuple[Any, ...]) -> str:
    """Where two outcomes part, short (pytest's own diff of two long reprs takes minutes)."""
    if cached == fresh:
        return ""
    for i, (a, b) in enumerate(zip(cached, fresh, strict=False)):
        if a != b:
            a, b = str(a), str(b)
            at = next((j for j, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                      min(len(a), len(b)))
            start = max(0, at - 80)
            return f"part {i} at {at}: cached {a[start:at + 80]!r} / fresh {b[start:at + 80]!r}"
    return f"lengths {len(cached)} / {len(fresh)}"


def _model() -> list[str]:
    return ["--model-path", str(so.oracle().model_dir)]


def _fresh_actions() -> list[argparse.Action]:
    parser = argparse.ArgumentParser(prog="sglang serve")
    with sglang_stubs.fake_cuda(81920.0):
        sglang_parser_cache.fresh(parser)
    return [a for a in parser._actions if a.option_strings and a.dest not in ("help", "config")]


def _value(action: argparse.Action, rng: random.Random) -> list[str]:
    """A flag with a value its action takes, or one it refuses."""
    flag = rng.choice(action.option_strings)
    if action.nargs == 0:
        return [flag]
    if action.choices is not None:
        choices = [str(c) for c in action.choices]
        pick = rng.choice([*choices, *choices, "bogus", choices[0].upper()])
    elif action.type is int:
        pick = rng.choice(["0", "1", "7", "64", "-3", "2.5", "x"])
    elif action.type is float:
        pick = rng.choice(["0.5", "1e3", "-1", "nan", "abc"])
    else:
        pick = rng.choice(["x", "1", "{}", "[1]", "a,b"])
    count = rng.randint(1, 3) if action.nargs in ("+", "*") else 1
    return [flag, *[pick] * count]


def _parser_lines(count: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    actions = _fresh_actions()
    lines = []
    for _ in range(count):
        argv = _model()
        for action in rng.sample(actions, rng.randint(1, 6)):
            argv += _value(action, rng)
        lines.append(argv)
    return lines


def _measure_lines(count: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [[*_model(), *measure_sglang.draw(rng)[0]] for _ in range(count)]


def test_cached_parse_is_the_fresh_parse_on_drawn_lines() -> None:
    lines = _measure_lines(8, 5) + _parser_lines(30, 7)
    kinds = set()
    for argv in lines:
        cached, fresh = _both(argv)
        differs = _differs(cached, fresh)
        assert not differs, f"{argv}: {differs}"
        kinds.add(cached[0])
    assert kinds == {"record", "exit"}  # both accepted and refused lines were compared


def test_cached_parse_is_the_fresh_parse_with_a_config_file(tmp_path: Path) -> None:
    config = tmp_path / "serve.yaml"
    config.write_text("tp-size: 2\ndisable-cuda-graph-padding: true\nsampling-backend: pytorch\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("attention-backend: no-such-backend\n")
    for argv in ([*_model(), "--config", str(config), "--tp-size", "4"],
                 [*_model(), "--config", str(bad)]):
        differs = _differs(*_both(argv))
        assert not differs


def test_one_parser_serves_many_lines() -> None:
    _outcome(_model())
    before = sglang_parser_cache.built()
    for argv in _measure_lines(5, 11):
        _outcome(argv)
    assert sglang_parser_cache.built() == before


@contextlib.contextmanager
def _environ(name: str, value: str) -> Iterator[None]:
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            del os.environ[name]
        else:
            os.environ[name] = saved


def test_the_token_oracle_variable_is_part_of_the_key() -> None:
    argv = [*_model(), "--sampling-backend", "token_oracle"]
    off = _outcome(argv)
    with _environ("SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE", "1"):
        on, fresh = _both(argv)
    differs = _differs(on, fresh)
    assert not differs
    assert (off[0], on[0]) == ("exit", "record")


def test_a_choices_list_extended_by_sglangs_hook_reaches_the_cached_parser() -> None:
    """`--linear-attn-prefill-backend` names the module's list (fields/exec_.py:560): the hook
    extends what a fresh parser offers, and the cached one must follow; the verify flag's
    list was copied at import (`+ ["nv_cutedsl"]`, :567): neither offers the new name."""
    so.oracle()  # SGLang's sources on the import path
    from sglang.srt.arg_groups import choices

    named = [*_model(), "--linear-attn-prefill-backend", "graphfit-plugin"]
    copied = [*_model(), "--linear-attn-verify-backend", "graphfit-plugin"]
    assert _outcome(named)[0] == "exit"
    listed = choices.LINEAR_ATTN_KERNEL_BACKEND_CHOICES
    choices.add_linear_attn_kernel_backend_choices(["graphfit-plugin"])
    try:
        after = [_both(named), _both(copied)]
    finally:
        listed.remove("graphfit-plugin")
    differs = [_differs(cached, fresh) for cached, fresh in after]
    assert differs == ["", ""]
    assert [cached[0] for cached, _ in after] == ["record", "exit"]
    assert _outcome(named)[0] == "exit"


def test_a_sampling_backend_registered_by_sglang_reaches_the_cached_parser() -> None:
    """`register_sampler_backend` (layers/sampler.py:749-760) adds to the set add_cli_args
    copies into `--sampling-backend`'s choices (server_args.py:356): the next line's parser
    must offer it, as a fresh one does."""
    so.oracle()
    with sglang_stubs.imports():
        from sglang.srt.layers import sampler

    argv = [*_model(), "--sampling-backend", "graphfit-sampler"]
    assert _outcome(argv)[0] == "exit"
    sampler.register_sampler_backend("graphfit-sampler", lambda: None)
    try:
        cached, fresh = _both(argv)
    finally:
        sampler._CUSTOM_SAMPLER_FACTORIES.pop("graphfit-sampler")
        so.oracle().server_args.SAMPLING_BACKEND_CHOICES.discard("graphfit-sampler")
    assert not _differs(cached, fresh)
    assert cached[0] == "record"
    assert _outcome(argv)[0] == "exit"


def test_a_parser_holding_arguments_is_built_by_sglang() -> None:
    parser = argparse.ArgumentParser(prog="sglang serve")
    parser.add_argument("--extra", type=int, default=3)
    with sglang_stubs.fake_cuda(81920.0):
        so.oracle().server_args.ServerArgs.add_cli_args(parser)
    namespace = parser.parse_args([*_model(), "--extra", "5"])
    assert namespace.extra == 5 and namespace.tp_size == 1


def test_a_parser_of_other_settings_keeps_them() -> None:
    with sglang_stubs.fake_cuda(81920.0):
        for prog in ("sglang serve", "other", "sglang serve"):
            parser = argparse.ArgumentParser(prog=prog, allow_abbrev=prog != "other")
            so.oracle().server_args.ServerArgs.add_cli_args(parser)
            assert (parser.prog, parser.allow_abbrev) == (prog, prog != "other")
            assert parser.format_usage().startswith(f"usage: {prog} ")


def test_lines_do_not_share_mutable_defaults() -> None:
    o = so.oracle()
    with sglang_stubs.fake_cuda(81920.0):
        first = o.server_args.prepare_server_args(_model())
        first.allowed_media_domains.append("leaked.example")
        second = o.server_args.prepare_server_args(_model())
    assert second.allowed_media_domains == []
