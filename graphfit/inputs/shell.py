"""A serving command pasted as one string, split into words as bash splits a simple command.

`shlex.split(comments=True)` differs from bash where it matters for a pasted serving line:
it takes a `#` inside a word for a comment (`vllm serve org/model#rev --max-num-seqs 8` lost
`--max-num-seqs 8`, and graphfit planned vLLM's default 1024 sequences), reads past a bare
newline into the next command, and keeps `a;b` or `x>log` as one word. bash's rules
(bash(1), QUOTING, COMMENTS, and "Lists": a newline, `;`, `&`, `|` and redirections end a
simple command), as this module reads them:

- words are separated by unquoted blanks (space, tab; a CR before a newline too);
- `'...'` is taken as is; in `"..."` a backslash escapes only `$`, `` ` ``, `"`, `\\` and a
  newline; outside quotes a backslash escapes any character;
- a backslash before a newline (outside single quotes) joins the lines (it is removed);
- `#` starts a comment only at the start of a word; the comment runs to the end of the line;
- an unquoted newline, `;`, `&`, `|`, `<` or `>` ends the command: what follows is another
  command (or a redirection: `2>&1` drops its `2` too) and is not read;
- nothing is expanded (`$VAR`, `$(...)`, `~`, globs stay as typed).

One pass over the text with one regular expression: linear time in the text's length. The
number of words is bounded (graphfit.planner.core.limits.MAX_PASTE_WORDS): the engines'
argparse parsers take time quadratic in the number of options, so a 120,000-word paste
would run for minutes in the engine's own parser; a longer paste is one ConfigError.
"""

from __future__ import annotations

import re

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.limits import MAX_PASTE_WORDS

_TOKEN = re.compile(r"""
    (?P<plain>[^ \t\n\r\f\v'"\\|&;<>\#]+)  # ordinary characters
  | (?P<hash>\#)                        # a comment at the start of a word, else a character
  | (?P<single>'[^']*')                 # single quotes: every character as is
  | (?P<double>"(?:[^"\\]|\\.)*")       # double quotes: \\ escapes a few characters
  | (?P<joined>\\\r?\n)                 # a line continuation
  | (?P<escaped>\\.)                    # an escaped character
  | (?P<end>\r?\n|[|&;<>])              # the end of this simple command
  | (?P<blank>[ \t\r\f\v]+)             # word separators
  | (?P<open>['"\\])                    # an unterminated quote or a backslash at the end
""", re.VERBOSE | re.DOTALL)
_DOUBLE_ESCAPE = re.compile(r'\\([$`"\\\n])|\\\r\n')


def _unquote_double(body: str) -> str:
    return _DOUBLE_ESCAPE.sub(lambda m: "" if m.group(1) in (None, "\n") else m.group(1), body)


def split(text: str, limit: int = MAX_PASTE_WORDS) -> list[str]:
    """The words of the first simple command in `text`, as bash splits them (see above)."""
    words: list[str] = []
    parts: list[str] = []
    in_word = False
    for match in _TOKEN.finditer(text):  # one alternative matches at every position
        kind, value = match.lastgroup, match.group()
        if kind == "blank":
            if in_word:
                words.append("".join(parts))
                parts, in_word = [], False
                if len(words) > limit:
                    break
            continue
        if kind == "hash" and not in_word:
            break  # a comment: to the end of the line, where the command ends
        if kind == "end":
            if value in "<>" and in_word and "".join(parts).isdigit():
                parts, in_word = [], False  # `2>&1`: the 2 is the redirection's
            break
        if kind == "open":
            what = ("a backslash" if value == "\\"
                    else f"an unclosed {value} (no closing quotation)")
            raise ConfigError(f"pasted command: ends with {what}")
        if kind == "joined":
            continue
        in_word = True
        if kind == "single":
            parts.append(value[1:-1])
        elif kind == "double":
            parts.append(_unquote_double(value[1:-1]))
        elif kind == "escaped":
            parts.append(value[1])
        else:  # plain, or a `#` inside a word
            parts.append(value)
    if in_word:
        words.append("".join(parts))
    return check_count(words, limit)


def check_count(words: list[str], limit: int = MAX_PASTE_WORDS) -> list[str]:
    """`words` when there are at most `limit` of them (words given one by one after `--`)."""
    if len(words) > limit:
        raise ConfigError(f"pasted command: more than {limit} words (a serving command has "
                          f"a few hundred at most; MAX_PASTE_WORDS)")
    return words
