"""A pasted one-string command is split as bash splits it (graphfit.inputs.shell).

The reference is bash itself: for text drawn from characters that bash neither expands nor
executes (no `$`, backquotes, globs, `;`, `|`, `&`, redirections or bare newlines), bash runs
`printf '%s\\0' START <text>` and its words are compared with graphfit's. The characters that
end a command are checked by example (running them in bash would run the next command).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.inputs.shell import check_count, split
from graphfit.planner.core.limits import MAX_PASTE_WORDS

BASH = shutil.which("bash")
PIECES = st.sampled_from(["a", "b-c", "--x", "=", "8", " ", "  ", "\t", "#", "'", '"', "\\",
                          "\\\n", "'q r'", '"s\\"t"', '"u\\\\v"', '"\\n"', "é", "\u00a0"])


def _bash_words(text: str) -> list[str] | None:
    """bash's words of `text`, or None when bash refuses it (an unclosed quote)."""
    assert BASH is not None
    done = subprocess.run([BASH, "--norc", "--noprofile", "-c", "printf '%s\\0' START " + text],
                          capture_output=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
                          timeout=30, check=False)
    if done.returncode != 0:
        return None
    words = done.stdout.decode("utf-8").split("\0")[:-1]
    assert words[0] == "START"
    return words[1:]


@pytest.mark.skipif(BASH is None, reason="no bash to compare with")
@settings(max_examples=60, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_words_are_what_bash_makes_of_them(text: str) -> None:
    expected = _bash_words(text)
    try:
        got: list[str] | None = split(text)
    except ConfigError:
        got = None
    if text.rstrip("\n").endswith("\\") and expected is not None and got is None:
        return  # bash -c keeps a backslash at the very end of its text; a paste ending so is
        # cut short, and graphfit says so rather than guess
    assert got == expected, text


@pytest.mark.parametrize(("text", "words"), [
    ("vllm serve foo#bar --max-num-seqs 8", ["vllm", "serve", "foo#bar", "--max-num-seqs", "8"]),
    ("vllm serve m # --max-num-seqs 8", ["vllm", "serve", "m"]),
    ("vllm serve m\n--max-num-seqs 8", ["vllm", "serve", "m"]),
    ("vllm serve m\r\n--max-num-seqs 8", ["vllm", "serve", "m"]),
    ("vllm serve m \\\r\n --max-num-seqs 8", ["vllm", "serve", "m", "--max-num-seqs", "8"]),
    ("vllm serve m --max-num-seqs 8 2>&1 | tee log", ["vllm", "serve", "m", "--max-num-seqs", "8"]),
    ("vllm serve m>log", ["vllm", "serve", "m"]),
    ("vllm serve m;echo x", ["vllm", "serve", "m"]),
    ("vllm serve m&&echo x", ["vllm", "serve", "m"]),
    ("vllm serve m &", ["vllm", "serve", "m"]),
    ("vllm serve m <in", ["vllm", "serve", "m"]),
    ("a '' b", ["a", "", "b"]),
    ("a $HOME $(x) `y` ~ *", ["a", "$HOME", "$(x)", "`y`", "~", "*"]),
])
def test_command_ends_and_comments_as_bash(text: str, words: list[str]) -> None:
    assert split(text) == words


@pytest.mark.parametrize("text", ["a 'b", 'a "b', "a \\"])
def test_unclosed_quotes_are_one_error(text: str) -> None:
    with pytest.raises(ConfigError, match="pasted command: ends with"):
        split(text)


def test_the_number_of_words_is_bounded() -> None:
    assert len(split(" ".join(["w"] * MAX_PASTE_WORDS))) == MAX_PASTE_WORDS
    with pytest.raises(ConfigError, match="MAX_PASTE_WORDS"):
        split(" ".join(["w"] * (MAX_PASTE_WORDS + 1)))
    with pytest.raises(ConfigError, match="MAX_PASTE_WORDS"):
        check_count(["w"] * (MAX_PASTE_WORDS + 1))
    with pytest.raises(ConfigError, match="MAX_PASTE_WORDS"):  # stops reading at the bound
        split("w " * 10**6)
