"""`python -m tests.oracle.measure_sglang_config_keys [N]` (issue 23 s51f): N drawn `--config`
YAML mappings on a pasted SGLang line (tests/oracle/sglang_config_keys_oracle.draws, seed
5151: SGLang's flags spelled with dashes, underscores, a dash made an underscore, the dest,
a prefix; booleans on store_true flags; now and then a key that is not a string), each
through SGLang 0.5.23's own merger and parser and through graphfit's pasted-line reader.
Prints how many both accept with the same values, how many both refuse with the same words,
with the same words in another order (apart: a flag whose choices SGLang builds from a set,
whose order varies), with another JSON reader's words, and how many differ (with the first).
Run with main's graphfit first on PYTHONPATH for the figure before."""

from __future__ import annotations

import sys
from collections import Counter

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_config_keys_oracle as t  # noqa: E402


def main(count: int) -> None:
    tally: Counter[str] = Counter()
    underscored: Counter[str] = Counter()  # a key with an underscore no option spells
    options = {o for a in t._actions() for o in a.option_strings}
    first = ""
    for data in t.draws(count, 5151):
        outcome = t.compare(data)
        tally[outcome] += 1
        if any(isinstance(k, str) and "_" in k and f"--{k}" not in options for k in data):
            underscored[outcome] += 1
        if outcome == "differ" and not first:
            theirs, _ = t.sglang_verdict(data)
            ours, _ = t.graphfit_verdict(data)
            first = f"{data!r:.120}: SGLang {theirs!s:.100} / graphfit {ours!s:.100}"
    print(f"{count} drawn --config mappings: both accept, same values {tally['accepted']}; "
          f"same refusal {tally['same']}; same words, other order {tally['order']}; "
          f"both refuse the value as not JSON {tally['json']}; differ {tally['differ']}")
    print(f"of the refusals: same words, a set's choices in another order (SGLang's order "
          f"varies between runs) {tally['set order']}")
    agree = sum(n for outcome, n in underscored.items() if outcome != "differ")
    print(f"of them with a key spelled with an underscore that no SGLang option spells: "
          f"{sum(underscored.values())}, graphfit agrees on {agree}")
    if first:
        print(f"first that differs: {first}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
