"""graphfit == SGLang 0.5.23 on a plain model type's config.json writing a class field null
(issue 23, s68c): SGLang's own ModelConfig on the directory (tests.oracle.sglang_draft_load:
its `get_config` loads the file with transformers 5.25's strict config class,
utils/hf_transformers/config.py:228) fails exactly where graphfit's
`graphfit.inputs.sglang_strict_nulls` says so, through `model_config.sglang_load_failure`.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_strict_nulls  # noqa: E402
from graphfit.inputs.sglang_draft_layer_default import CLASS_LAYERS  # noqa: E402
from tests.oracle import sglang_draft_load as dlo  # noqa: E402

_ANSWERS: dict[str, str] = {}


def _case(kind: str, *keys: str, named: str = "", **more: object) -> dlo.Case:
    """`kind`'s config.json (naming `named`) with `keys` null and `more` written."""
    written = [*keys, *more]
    return f"{kind}/{named}/{'+'.join([*written, ''])}", [None] * len(keys) + list(
        more.values()), None


def _sglang(case: dlo.Case) -> str:
    key = repr(case)
    if key not in _ANSWERS:
        _ANSWERS[key] = dlo.sglang(case)
    return _ANSWERS[key]


def _agree(case: dlo.Case) -> str | None:
    theirs, ours = _sglang(case), dlo.graphfit(case)
    return None if (theirs == "loads") == (ours is None) else f"{case}: SGLang {theirs}; {ours}"


def _fixed() -> list[dlo.Case]:
    """Per plain type: its first and last (sorted) field and a token id written null
    (strict ones, annotated without None, and optional ones); an MLA class named over it;
    Exaone 4's post-init nulls with and without `layer_types`."""
    cases = []
    for kind in sorted(CLASS_LAYERS):
        fields = dlo.class_fields(kind)
        tokens = [key for key in fields if key.endswith("token_id")]
        cases += [_case(kind, key) for key in {fields[0], fields[-1], *tokens[:1]}]
    cases += [_case("deepseek_v3", "kv_lora_rank"), _case("deepseek_v3", "v_head_dim"),
              _case("deepseek_v2", "v_head_dim"), _case("llama", "head_dim"),
              _case("gemma", "head_dim"), _case("mistral", "sliding_window"),
              _case("llama", "rms_norm_eps", named="DeepseekV3ForCausalLM"),
              _case("exaone4", "sliding_window"), _case("exaone4", "sliding_window_pattern"),
              _case("exaone4", "sliding_window", layer_types=["full_attention"] * 4),
              _case("exaone4", "sliding_window_pattern", layer_types=["full_attention"] * 4)]
    return cases


FIXED = _fixed()


def test_fixed_nulls_as_sglang() -> None:
    """The fixed grid: graphfit refuses exactly where SGLang's load fails, and both kinds
    of outcome occur (strict and optional fields; Exaone 4's post-init)."""
    wrong = [said for case in FIXED if (said := _agree(case)) is not None]
    assert not wrong, wrong
    fails = [case for case in FIXED if _sglang(case) != "loads"]
    assert len(fails) >= 20 and len(FIXED) - len(fails) >= 20, len(fails)
    assert any("StrictDataclassFieldValidationError" in _sglang(case) for case in fails)
    assert any("ZeroDivisionError" in _sglang(case) for case in fails)


@settings(max_examples=15)
@given(st.integers(0, 2**32 - 1))
def test_drawn_nulls_as_sglang(seed: int) -> None:
    """Drawn (plain type, one or two of its class's fields null, sometimes another class
    named), as the measure draws them."""
    said = _agree(dlo.draw_strict(random.Random(seed), dlo.types()))
    assert said is None, said


def test_strict_null_is_one_error_line() -> None:
    """Through the CLI: exit 2 and one whole `error:` line naming SGLang's load site."""
    from tests.helpers import run_cli

    case = _case("deepseek_v3", "kv_lora_rank")
    code, out, err = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                              "--model-path", dlo.folder(case[0], case[1]),
                              "--max-running-requests", "16"])
    lines = err.strip().splitlines()
    assert code == 2 and not out and len(lines) == 1, (code, out, err)
    assert lines[0].startswith("error: ") and len(lines[0]) <= 200 and " ... " not in lines[0]
    assert "kv_lora_rank null (deepseek_v3)" in lines[0], lines[0]
    assert lines[0].endswith("utils/hf_transformers/config.py:228)"), lines[0]


@pytest.mark.parametrize("plant", ["strict", "optional", "post_init", "layer_types"])
def test_planted_errors_caught(monkeypatch: pytest.MonkeyPatch, plant: str) -> None:
    """Planted: the strict fields unknown, the optional ones judged strict, Exaone 4's
    post-init nulls dropped, or judged with `layer_types` written: each differs from SGLang
    on the fixed grid."""
    if plant == "strict":
        monkeypatch.setattr(sglang_strict_nulls, "STRICT", {})
    elif plant == "optional":
        monkeypatch.setattr(sglang_strict_nulls, "STRICT", {
            kind: frozenset(dlo.class_fields(kind)) for kind in CLASS_LAYERS})
    elif plant == "post_init":
        monkeypatch.setattr(sglang_strict_nulls, "POST_INIT", {})
    else:
        real = sglang_strict_nulls.strict_null
        monkeypatch.setattr(sglang_strict_nulls, "strict_null", lambda written, kind: real(
            {k: v for k, v in written.items() if k != "layer_types"}, kind))
    assert any(_agree(case) is not None for case in FIXED), plant
