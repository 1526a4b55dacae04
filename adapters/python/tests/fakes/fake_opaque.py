"""Arrays with no export at all: the worker must refuse them, naming the type."""

from fakelib import Array, build

build(globals(), Array)
