"""C kernels compiled on first use and loaded with ctypes.

Some inner loops (exact branch and bound, regret updates over large DAGs, tree builders) are too
slow in Python and numpy. Their C source lives next to the Python that calls them; this module
compiles a source once with the system C compiler into the user's cache directory and loads it
with ctypes. Every caller keeps a pure-Python fallback, used when no C compiler is available
(``compile_c`` then returns None).
"""

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, Optional, Sequence

_LOADED: Dict[str, ctypes.CDLL] = {}


def cache_dir() -> str:
  """Where compiled kernels are kept ($XDG_CACHE_HOME/ospiel_team or ~/.cache/ospiel_team)."""
  base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
  return os.path.join(base, "ospiel_team")


def compile_c(name: str, source: str,
              flags: Sequence[str] = ("-O3",)) -> Optional[ctypes.CDLL]:
  """Compiles `source` (once per distinct source and flags) and loads it.

  Args:
    name: a short file-name stem for the library (letters, digits, underscores).
    source: the C source text.
    flags: compiler flags besides ``-shared -fPIC``.

  Returns:
    The loaded library, or None when no C compiler is available or compilation fails.
  """
  if not name.replace("_", "").isalnum():
    raise ValueError(f"compile_c: name must be letters, digits and underscores, got {name!r}")
  digest = hashlib.sha256((source + "\0" + " ".join(flags)).encode()).hexdigest()[:16]
  suffix = ".dylib" if sys.platform == "darwin" else ".so"
  path = os.path.join(cache_dir(), f"{name}_{digest}{suffix}")
  if path in _LOADED:
    return _LOADED[path]
  if not os.path.exists(path):
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
      return None
    os.makedirs(cache_dir(), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
      src = os.path.join(tmp, "kernel.c")
      with open(src, "w") as f:
        f.write(source)
      out = os.path.join(tmp, "kernel" + suffix)
      proc = subprocess.run([compiler, *flags, "-shared", "-fPIC", "-o", out, src],
                            capture_output=True, text=True)
      if proc.returncode != 0:
        return None
      os.replace(out, path)  # atomic: a concurrent process sees the whole library or none
  lib = ctypes.CDLL(path)
  _LOADED[path] = lib
  return lib
