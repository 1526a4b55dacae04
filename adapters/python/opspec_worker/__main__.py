"""Entry point. Before anything else is imported, fd 1 is saved for the protocol and pointed
at fd 2, so that stray prints and C-level writes of the library go to stderr."""

import os
import sys


def main(argv):
    protocol = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from .worker import serve

    sys.exit(serve(argv, os.fdopen(protocol, "wb")))


if __name__ == "__main__":
    main(sys.argv[1:])
