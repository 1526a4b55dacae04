"""opspec's Python worker: drives a Python array library over opspec's wire protocol.

Run as ``python -m opspec_worker BACKEND [KEY=VALUE ...]`` (``docs/PROTOCOL.md``). This
package imports nothing on purpose: ``__main__`` moves stdout out of the protocol's way
before any library is loaded.
"""
