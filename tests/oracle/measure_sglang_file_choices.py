"""`python -m tests.oracle.measure_sglang_file_choices`: every choice-valued flag of SGLang
0.5.23's parser, its key in an `engine: sglang` config file with a value outside its choices
("x" + its first choice), through `graphfit plan --config` (tests/oracle/
sglang_file_choices_oracle.graphfit_says). Prints how many of the keys graphfit refuses
with SGLang's argparse words (issue 23 s47l; run with main's graphfit first on PYTHONPATH for
the figure before it), and the first key it does not."""

from __future__ import annotations

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_file_choices_oracle as t  # noqa: E402


def main() -> None:
    actions = t.sglang_actions()
    refused = 0
    first = ""
    for dest, action in sorted(actions.items()):
        value = "x" + min(map(str, action.choices))
        ours = t.graphfit_says(dest, value)
        if f"argument {action.option_strings[0]}:" in ours:
            refused += 1
        elif not first:
            first = f"{dest}={value}: {ours[:120]}"
    print(f"{len(actions)} choice-valued SGLang keys with a value outside their choices: "
          f"graphfit refuses {refused} with SGLang's argparse words")
    if first:
        print(f"first not refused: {first}")


if __name__ == "__main__":
    main()
