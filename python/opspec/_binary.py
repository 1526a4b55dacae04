"""Where the wheel put the ``opspec`` program."""

import os
import shutil
import sys
import sysconfig
from pathlib import Path

EXE = "opspec.exe" if os.name == "nt" else "opspec"


class BinaryNotFound(RuntimeError):
    """The ``opspec`` program is not where the wheel installs it, nor on PATH."""


def _candidates():
    # The wheel's binary goes to the scheme's scripts folder (a venv's bin/): the scheme this
    # interpreter installs into, then the user scheme (`pip install --user`).
    seen = set()
    schemes = [None]
    user = f"{os.name}_user"
    if user in sysconfig.get_scheme_names():
        schemes.append(user)
    for scheme in schemes:
        try:
            folder = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        if folder and folder not in seen:
            seen.add(folder)
            yield Path(folder) / EXE
    # Beside the interpreter (a venv whose scheme paths were not relocated).
    beside = str(Path(sys.executable).parent)
    if beside not in seen:
        yield Path(beside) / EXE


def binary() -> str:
    """The path of the ``opspec`` program: ``$OPSPEC_BINARY``, else the one the wheel installed
    beside this interpreter, else the first on PATH."""
    override = os.environ.get("OPSPEC_BINARY")
    if override:
        if os.path.isfile(override) and os.access(override, os.X_OK):
            return override
        raise BinaryNotFound(f"OPSPEC_BINARY={override} is not an executable file")
    tried = []
    for candidate in _candidates():
        tried.append(str(candidate))
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(EXE)
    if found:
        return found
    raise BinaryNotFound(
        "no opspec program: looked in "
        + ", ".join(tried)
        + " and on PATH; install the opspec wheel into this interpreter "
        "(pip install opspec-….whl) or set OPSPEC_BINARY=/path/to/opspec"
    )


def version() -> str:
    """The installed distribution's version (the crate's)."""
    from importlib.metadata import version as dist_version

    return dist_version("opspec")
