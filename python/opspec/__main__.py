"""``python -m opspec ARGS…`` runs the bundled ``opspec`` program with ARGS."""

import os
import subprocess
import sys

from ._binary import BinaryNotFound, binary


def main() -> int:
    try:
        program = binary()
    except BinaryNotFound as error:
        print(f"python -m opspec: {error}", file=sys.stderr)
        return 127
    argv = [program, *sys.argv[1:]]
    if os.name == "posix":
        # Replace this process, so that signals, the exit code and the terminal are the program's.
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(program, argv)
    return subprocess.call(argv)


if __name__ == "__main__":
    sys.exit(main())
