"""opspec: spec-conformance checks for element-wise tensor operations.

The wheel installs the ``opspec`` program; this package finds it (:func:`binary`) and runs it
(``python -m opspec …``), and holds the pytest plugin (:mod:`opspec.pytest_plugin`).
"""

from ._binary import BinaryNotFound, binary, version

__all__ = ["BinaryNotFound", "binary", "version"]
