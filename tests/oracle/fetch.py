"""Download the pinned engine wheels (no dependencies) and keep only their *.py files.

    python tests/oracle/fetch.py                 # every version of every engine in ENGINES
    python tests/oracle/fetch.py vllm            # every pinned vLLM
    python tests/oracle/fetch.py vllm 0.34.0     # one (also a version not yet in ENGINES)

Each lands in `<cache>/<name>-<version>/` with a `.complete` marker written last. The wheel
itself is deleted afterwards: the oracle needs the pure-Python config, ladder, dispatcher and
buffer code, never the compiled kernels.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paths import ENGINES, source_root


def fetch(name: str, version: str) -> Path:
    root = source_root(name, version)
    marker = root / ".complete"
    if marker.is_file():
        return root
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--disable-pip-version-check", "-d", tmp, f"{name}=={version}"],
                       check=True)
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise SystemExit(f"expected one wheel for {name}=={version}, got {wheels}")
        with zipfile.ZipFile(wheels[0]) as archive:
            for member in archive.namelist():
                if member.endswith(".py"):
                    archive.extract(member, root)
    marker.write_text(f"{name}=={version}\n")
    return root


def main(argv: list[str]) -> None:
    names = argv[:1] or list(ENGINES)
    for name in names:
        if name not in ENGINES:
            raise SystemExit(f"unknown engine {name!r} (known: {', '.join(ENGINES)})")
        for version in argv[1:] or ENGINES[name]:
            print(f"{name}=={version}: {fetch(name, version)}")


if __name__ == "__main__":
    main(sys.argv[1:])
