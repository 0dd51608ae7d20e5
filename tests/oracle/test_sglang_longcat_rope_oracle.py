"""graphfit == SGLang 0.5.23 on LongCat-Flash configs whose `rope_scaling` is null or absent
(graphfit.inputs.sglang_longcat_rope; issue 23, s68d): SGLang's resolution of a NEXTN / EAGLE
line, then its own target model and draft model built on meta (tests.oracle.
sglang_draft_build.build_draft, `as_target` for the target) against graphfit's CLI on the
pasted line: both refuse (graphfit's one error line names the TypeError and which model) or
both start. Fixed lines, then drawn configs (`rope_scaling` / `rope_parameters` written,
null, empty or absent) and drawn `--json-model-override-args` (either key, in either order).
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_build as sdb  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

_ABSENT = object()
_DEFAULT = {"rope_type": "default", "rope_theta": 10000000.0}
_BASE = {k: v for k, v in sdb.NEXTN_DRAFTS["longcat_flash"].items()
         if k not in ("rope_scaling", "rope_parameters")}


def write(folder: Path, scaling: Any = _ABSENT, parameters: Any = _ABSENT) -> Path:
    """A LongCat-Flash checkpoint directory with the given RoPE keys (`_ABSENT`: not written)."""
    data = dict(_BASE)
    for key, value in (("rope_scaling", scaling), ("rope_parameters", parameters)):
        if value is not _ABSENT:
            data[key] = value
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(data))
    return folder


def argv(draft: Path, method: str = "NEXTN", overrides: dict[str, Any] | None = None
         ) -> tuple[str, ...]:
    extra = ("--json-model-override-args", json.dumps(overrides)) if overrides else ()
    return ("--tp-size", "2", "--speculative-algorithm", method, "--speculative-num-steps",
            "2", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
            "--speculative-draft-model-path", str(draft), *extra)


def sglang(target: Path, line: tuple[str, ...]) -> str | None:
    """SGLang's refusal: its resolution, then the target's model build, then the draft's."""
    r = so.resolve(line, model=str(target))
    if isinstance(r, so.Rejected):
        return f"resolution: {r.text}"
    draft = line[line.index("--speculative-draft-model-path") + 1]
    for who, as_target in (("target", True), ("draft", False)):
        with sglang_stubs.stubbed(), so.published(r):
            from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
            from sglang.srt.runtime_context import get_parallel

            initialize_dp_attention_flags(None)
            try:
                sdb.build_draft(r.record, draft, False, get_parallel().moe_ep_size, True,
                                False, as_target)
            except (TypeError, AttributeError, KeyError, ValueError) as exc:
                return f"{who} build: {type(exc).__name__}: {exc}"
    return None


def graphfit(target: Path, line: tuple[str, ...]) -> tuple[int, str]:
    from graphfit.cli.application import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", "sglang", "serve", "--model-path",
                  str(target), *line])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, err.getvalue().strip()


def agree(theirs: str | None, code: int, said: str) -> bool:
    """Both start, or both refuse with graphfit's one line naming SGLang's exception and the
    model that fails."""
    if theirs is None:
        return code == 0
    lines = said.splitlines()
    if not (code == 2 and len(lines) == 1 and len(lines[0]) <= 200 and "Traceback" not in said):
        return False
    if "build: TypeError" not in theirs:
        return True  # another rule's refusal: both refuse
    who = theirs.split(" build")[0]
    return "TypeError" in lines[0] and f"the {who}" in lines[0] and "rope" in lines[0]


@pytest.fixture(scope="module", autouse=True)
def _oracle() -> None:
    so.oracle()


def test_fixed_lines_agree(tmp_path: Path) -> None:
    good = write(tmp_path / "good", _DEFAULT)
    null = write(tmp_path / "null", None)
    absent = write(tmp_path / "absent")
    params = write(tmp_path / "params", _ABSENT, _DEFAULT)  # overwritten by rope_scaling
    empty = write(tmp_path / "empty", {})
    qwen = sglang_stubs.write_moe_model_dir(tmp_path / "qwen3")
    cases = (  # (target, draft, method, overrides)
        (good, good, "NEXTN", None),
        (null, null, "NEXTN", None),  # the target fails first
        (good, absent, "NEXTN", None),  # the draft
        (params, good, "NEXTN", None),
        (empty, empty, "NEXTN", None),  # {}: rope_theta is read instead
        (qwen, null, "EAGLE", None),  # a LongCat draft over another target
        (null, null, "NEXTN", {"rope_scaling": _DEFAULT}),  # the override fills it
        (good, good, "NEXTN", {"rope_parameters": _DEFAULT, "rope_scaling": None}),
    )
    wrong, refused = [], []
    for target, draft, method, overrides in cases:
        line = argv(draft, method, overrides)
        theirs = sglang(target, line)
        code, said = graphfit(target, line)
        refused.append(theirs is not None)
        if not agree(theirs, code, said):
            wrong.append(f"{target.name}/{draft.name} {method} {overrides}: SGLang {theirs}; "
                         f"graphfit {code} {said[:300]}")
    assert not wrong, "\n".join(wrong)
    assert refused == [False, True, True, True, False, True, False, True], refused


_VALUES = (_ABSENT, None, {}, _DEFAULT, {"rope_type": "default"})


def draw(rng: random.Random, root: Path, index: int) -> tuple[Path, tuple[str, ...]]:
    """One drawn line: a target and a draft directory (the same half the time), each with
    drawn RoPE keys, and drawn override args."""
    def one(name: str) -> Path:
        return write(root / f"{index}-{name}", rng.choice(_VALUES),
                     rng.choice((_ABSENT, _ABSENT, None, _DEFAULT)))

    target = one("target")
    draft = target if rng.random() < 0.5 else one("draft")
    keys = rng.sample(("rope_scaling", "rope_parameters"), rng.randint(0, 2))
    overrides = {key: rng.choice((None, _DEFAULT, {"rope_type": "default"})) for key in keys}
    return target, argv(draft, rng.choice(("NEXTN", "EAGLE")), overrides)


def test_drawn_lines_agree(tmp_path: Path) -> None:
    rng = random.Random(68)
    wrong, refused = [], 0
    for index in range(8):
        target, line = draw(rng, tmp_path, index)
        theirs = sglang(target, line)
        code, said = graphfit(target, line)
        refused += theirs is not None
        if not agree(theirs, code, said):
            wrong.append(f"{line[-2:]}: SGLang {theirs}; graphfit {code} {said[:300]}")
    assert not wrong, "\n".join(wrong)
    assert 0 < refused < 8, refused  # not vacuous
