"""Oracle glue: the engines' own pure-Python code, run on CPU, as the reference graphfit is
compared with. `fetch.py` downloads the pinned wheels and extracts their *.py files; `paths.py`
finds them (and decides whether a missing wheel skips or fails)."""
