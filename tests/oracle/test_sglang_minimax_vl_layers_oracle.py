"""The MiniMax-M3 VL wrapper's layer lists and encoder-only servers against SGLang 0.5.23
(issue 23 s55n; graphfit.inputs.sglang_minimax_vl_layers, graphfit.inputs.sglang_minimax_kv).

- SGLang's `get_config` loads the VL config through transformers, whose text class derives
  `layer_types` / `mlp_layer_types` from the text dict's `sparse_attention_freq` /
  `moe_layer_freq` and refuses a length other than num_hidden_layers (transformers
  configuration_utils.py:709-724): SGLang's resolution rejects the line and graphfit refuses
  it with the same two numbers.
- An encoder-only server builds no KV pool (disaggregation/encoder/server.py:563-623), so no
  sparse config is read: SGLang resolves such a line on a VL target without one, and graphfit
  plans it without the sparse KV price.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import test_sglang_minimax_kv_oracle as t  # noqa: E402
from tests.oracle import test_sglang_minimax_kv_quant_oracle as q  # noqa: E402

REFUSED = {
    "freq-short": t.case([0, 1], layers=3, nested=True),
    "freq-long": t.case([0, 1, 1, 0], layers=3, nested=True),
}
BUILT = {
    "top-level-freq-short": t.case([0, 1], layers=3),  # no layer lists at the top level
    "nested-equal": t.case([0, 1, 1], nested=True),
}


def _moe_short() -> dict[str, Any]:
    c = t.case([0, 1, 1], nested=True)
    return {**c, "fields": {**c["fields"], "moe_layer_freq": [0, 0]}}


def _override_too_late() -> dict[str, Any]:
    """The override args replace the text dict with a consistent one, but they come after the
    class is built (config.py:411-414): the WRITTEN lists are the ones checked."""
    from tests.oracle import sglang_minimax_target_oracle as mo

    c = t.case([0, 1, 1], layers=4, nested=True)
    good = {**mo.TEXT, **t.case([0, 1, 1], nested=True)["fields"]}
    return {**c, "override": {"text_config": good}}


REFUSED["moe-freq-short"] = _moe_short()
REFUSED["override-too-late"] = _override_too_late()


@pytest.mark.parametrize("name", list(REFUSED))
def test_layer_list_length_refused_as_sglang(name: str) -> None:
    c = REFUSED[name]
    theirs, ours = t.sglang_prices(c), t.graphfit_prices(c)
    assert isinstance(theirs, str) and "validate_layer_type" in theirs, theirs
    assert isinstance(ours, str) and ours.startswith("refused:"), ours
    # SGLang's "`num_hidden_layers` (N) must be equal to the number of `<list>` (M)"
    found = re.search(r"\((\d+)\) must be equal to the number of `(\w+)` \((\d+)\)", theirs)
    assert found is not None, theirs
    count, kind, length = found.groups()
    assert f"{kind} " in ours and f"has {length} entries, not num_hidden_layers {count}" in ours
    assert len(ours.removeprefix("refused: ")) <= 200


@pytest.mark.parametrize("name", list(BUILT))
def test_layer_lists_sglang_builds(name: str) -> None:
    outcome, theirs, ours = t.verdict(BUILT[name])
    assert outcome == "agree", (theirs, ours)


def test_encoder_only_vl_server_without_sparse_config() -> None:
    """SGLang resolves an encoder-only line on a VL target with no sparse config (its
    encoder server sizes no KV pool), and graphfit plans it without a sparse KV price; the
    same target served whole is refused by both at the pool's sparse-config read."""
    from graphfit.planner.engines.sglang_minimax_kv import sparse_kv_line
    from tests.oracle import sglang_oracle as so

    c = t.case([0, 1], nested=True)
    c = {**c, "fields": {**c["fields"], "sparse_attention_config": None}}  # None: removed
    whole = t.sglang_prices(c)
    assert isinstance(whole, str) and "Could not find sparse config" in whole, whole
    assert t.graphfit_prices(c) != whole and str(t.graphfit_prices(c)).startswith("refused")
    encoder = {**c, "more": ("--encoder-only",)}
    resolved = so.resolve(t.argv_of(encoder), model=t.path_of(encoder),
                          capability=t.CAPABILITY["H100"])
    assert isinstance(resolved, so.Resolved), resolved
    assert sparse_kv_line(q._planned(encoder)) is None
    # with a sparse config too: the whole server is priced, the encoder server is not
    priced = t.case([0, 1], nested=True)
    assert not isinstance(t.sglang_prices(priced), str)
    assert sparse_kv_line(q._planned(priced)) is not None
    assert sparse_kv_line(q._planned({**priced, "more": ("--encoder-only",)})) is None
