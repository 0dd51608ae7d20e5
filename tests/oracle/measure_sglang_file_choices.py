"""`python -m tests.oracle.measure_sglang_file_choices`: every choice-valued flag of SGLang
0.5.23's parser, its key in an `engine: sglang` config file with a value outside its choices
("x" + its first choice), through `graphfit plan --config` (tests/oracle/
sglang_file_choices_oracle.graphfit_says). Prints how many of the keys graphfit refuses
with SGLang's argparse words (issue 23 s47l; run with main's graphfit first on PYTHONPATH for
the figure before it), how many with the choice list in SGLang's order as far as the error
line shows it (issue 23 s55l), and the first key it does not refuse so.

`python -m tests.oracle.measure_sglang_file_choices lists [N]` (issue 23 s50l): N drawn
mappings of choice keys with booleans, None, dicts and lists (`file_draws`, seed 5050), each
through SGLang's own --config merger and parser and through `graphfit plan --config`: of the
mappings SGLang's parser refuses, how many graphfit refuses with SGLang's words; of those it
accepts, how many graphfit refuses while reading the file (a false refusal at parse level:
"expected ...", "invalid choice", "unrecognized arguments")."""

from __future__ import annotations

import sys

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_file_choices_oracle as t  # noqa: E402


def main() -> None:
    actions = t.sglang_actions()
    refused = whole = 0
    first = ""
    for dest, action in sorted(actions.items()):
        value = "x" + min(map(str, action.choices))
        ours = t.graphfit_says(dest, value)
        theirs, _parsed = t.sglang_file_verdict({action.option_strings[0][2:]: value})
        if f"argument {action.option_strings[0]}:" in ours:
            refused += 1
            # issue 23 s55l: the choice list too, in SGLang's order, as far as the one
            # error line shows it (graphfit cuts a long list with "...")
            shown = ours.split(" refuses it: ", 1)[-1].removesuffix("...")
            whole += bool(theirs and theirs.startswith(shown))
        elif not first:
            first = f"{dest}={value}: {ours[:120]}"
    print(f"{len(actions)} choice-valued SGLang keys with a value outside their choices: "
          f"graphfit refuses {refused} with SGLang's argparse words, {whole} with its choice "
          f"list in SGLang's order as far as the line shows it (a set's order varies: "
          f"--sampling-backend)")
    if first:
        print(f"first not refused: {first}")


def lists(count: int) -> None:
    refused = same = accepted = false = 0
    first = ""
    for data in t.file_draws(count, 5050):
        theirs, _parsed = t.sglang_file_verdict(data)
        ours = t.graphfit_file_says({k.replace("-", "_"): v for k, v in data.items()})
        if theirs is not None:
            refused += 1
            head = theirs.split(" (choose from ", 1)[0]
            if head in ours:
                same += 1
            elif not first:
                first = f"{data}: SGLang {theirs[:60]} / graphfit {ours[:80]}"
        else:
            accepted += 1
            if any(w in ours for w in ("expected ", "invalid choice", "unrecognized argu")):
                false += 1
                first = first or f"{data}: SGLang parses it / graphfit {ours[:100]}"
    print(f"{count} drawn config-file mappings: SGLang's parser refuses {refused}, graphfit "
          f"refuses {same} of them with SGLang's words; SGLang's parser accepts {accepted}, "
          f"graphfit refuses {false} of them while reading the file")
    if first:
        print(f"first difference: {first}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["lists"]:
        lists(int(sys.argv[2]) if len(sys.argv) > 2 else 60)
    else:
        main()
