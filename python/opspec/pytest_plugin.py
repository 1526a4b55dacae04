"""opspec's pytest plugin: every opspec check becomes a pytest item named by its check id.

Enabled by ``--opspec-adapter SPEC`` (or ``opspec_adapter`` in the ini file); without it the
plugin adds nothing. opspec runs once per session, for the items that are still selected after
``-k``/``-m``/``--deselect``, and each item reports its check's status from ``results.jsonl``:

=================  ==============================================================
opspec status      pytest outcome
=================  ==============================================================
pass               passed
fail               failed, with the check's report (a failure below ``--opspec-gate``
                   passes, its report kept as the item's ``opspec`` section)
known_deviation    xfailed, the expectations entry's ``does`` as the reason
skip               skipped, with opspec's reason
missing            failed (the run ended before the check ran)
unavailable        failed (the adapter could not start)
=================  ==============================================================

docs/PYTHON.md has the options and a CI recipe.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ._binary import BinaryNotFound, binary

GATES = ("must", "should", "quality")
TIER_RANK = {"must": 0, "should": 1, "quality": 2}
# One argument may hold at most MAX_ARG_STRLEN (128 KiB) bytes on Linux; stay well below.
MAX_FILTER_CHARS = 100_000
SECTION = "opspec"


def pytest_addoption(parser):
    group = parser.getgroup("opspec", "opspec conformance checks (docs/PYTHON.md)")
    group.addoption(
        "--opspec-adapter", action="append", default=None, metavar="SPEC",
        help="run opspec's checks against this adapter, e.g. 'python:mylib' or "
        "'python:module=mylib.array_api' (repeatable); enables the plugin",
    )
    group.addoption(
        "--opspec-suite", action="append", default=None, metavar="SUITE",
        help="an opspec suite to run (repeatable; default: every suite)",
    )
    group.addoption(
        "--opspec-filter", default=None, metavar="PATTERN",
        help="only the checks this opspec --filter selects, e.g. 'array-api:*:{add,sqrt}:*'",
    )
    group.addoption(
        "--opspec-expectations", action="append", default=None, metavar="FILE",
        help="an expectations file listing the library's known deviations (repeatable)",
    )
    group.addoption(
        "--opspec-report", default=None, metavar="DIR",
        help="where opspec writes results.jsonl, index.html and its own junit.xml "
        "(default: opspec-report)",
    )
    group.addoption(
        "--opspec-gate", default=None, choices=GATES,
        help="which failures fail their item: the document's musts (default), its shoulds "
        "too, or opspec's quality bars too",
    )
    group.addoption(
        "--opspec-timeout", default=None, type=float, metavar="SECONDS",
        help="how long one adapter call may take (opspec's --timeout, default 120)",
    )
    group.addoption(
        "--opspec-tables", action="store_true", default=None,
        help="also the tables' self-checks (table:…), which test opspec's tables, not the library",
    )
    group.addoption(
        "--opspec-binary", default=None, metavar="PATH",
        help="the opspec program (default: the one the opspec wheel installed, "
        "$OPSPEC_BINARY, then PATH)",
    )
    group.addoption(
        "--opspec-run-args", default=None, metavar="ARGS",
        help="more arguments for `opspec run`, one shell-quoted string (e.g. '--layouts-large')",
    )
    parser.addini("opspec_adapter", "adapters, as --opspec-adapter (one per line)", type="linelist")
    parser.addini("opspec_suite", "suites, as --opspec-suite (one per line)", type="linelist")
    parser.addini("opspec_filter", "a check filter, as --opspec-filter", type="string", default="")
    parser.addini(
        "opspec_expectations",
        "expectations files, relative to the ini file's folder (one per line)",
        type="linelist",
    )
    parser.addini("opspec_report", "the report folder, relative to the ini file's folder", type="string", default="")
    parser.addini("opspec_gate", "must, should or quality (default must)", type="string", default="")
    parser.addini("opspec_timeout", "seconds per adapter call", type="string", default="")
    parser.addini("opspec_run_args", "more arguments for `opspec run`", type="string", default="")


def pytest_configure(config):
    config.addinivalue_line("markers", "opspec: an opspec conformance check (added by the opspec plugin)")
    settings = _Settings.from_config(config)
    if settings is not None:
        config.stash[_KEY] = _Session(config, settings)


_KEY = pytest.StashKey["_Session"]()


class _Settings:
    """The plugin's options, command line over ini file, paths resolved."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    @classmethod
    def from_config(cls, config):
        opt = config.option
        root = Path(config.rootpath)
        here = Path(config.invocation_params.dir)
        adapters = opt.opspec_adapter or config.getini("opspec_adapter")
        if not adapters:
            return None
        from_command_line = bool(opt.opspec_adapter)
        suites = opt.opspec_suite or config.getini("opspec_suite")
        filt = opt.opspec_filter or config.getini("opspec_filter") or None
        if opt.opspec_expectations:
            expectations = [here / f for f in opt.opspec_expectations]
        else:
            expectations = [root / f for f in config.getini("opspec_expectations")]
        if opt.opspec_report:
            report = here / opt.opspec_report
        elif config.getini("opspec_report"):
            report = root / config.getini("opspec_report")
        else:
            report = here / "opspec-report"
        gate = opt.opspec_gate or config.getini("opspec_gate") or "must"
        if gate not in GATES:
            raise pytest.UsageError(f"opspec_gate = {gate!r}: use one of {', '.join(GATES)}")
        timeout = opt.opspec_timeout
        if timeout is None and config.getini("opspec_timeout"):
            try:
                timeout = float(config.getini("opspec_timeout"))
            except ValueError:
                raise pytest.UsageError(
                    f"opspec_timeout = {config.getini('opspec_timeout')!r} is not a number of seconds"
                ) from None
        run_args = shlex.split(opt.opspec_run_args or config.getini("opspec_run_args") or "")
        for path in expectations:
            if not path.is_file():
                raise pytest.UsageError(f"opspec: expectations file {path} does not exist")
        return cls(
            adapters=list(adapters), suites=list(suites), filter=filt, expectations=expectations,
            report=report, gate=gate, timeout=timeout, tables=bool(opt.opspec_tables),
            binary=opt.opspec_binary, run_args=run_args, from_command_line=from_command_line,
        )

    def selection_args(self):
        """The arguments `opspec list` and `opspec run` share."""
        args = []
        for adapter in self.adapters:
            args += ["--adapter", adapter]
        for suite in self.suites:
            args += ["--suite", suite]
        for path in self.expectations:
            args += ["--expectations", str(path)]
        if not self.tables:
            args.append("--no-tables")
        return args


class _Session:
    """One pytest session's opspec: the listed ids, the run, its results."""

    def __init__(self, config, settings):
        self.config = config
        self.settings = settings
        self.program = None
        self.listed = []
        self.records = None  # id -> check record, once the run has been read
        self.run_error = None  # why the run gave no result for a check, if it did not
        self.exit_code = None
        self.ran_ids = 0
        self.seconds = None
        self.log = settings.report / "opspec-run.log"
        self.filter_note = None

    # -- the program ---------------------------------------------------------------------

    def _program(self):
        if self.program is None:
            if self.settings.binary:
                path = Path(self.settings.binary)
                if not (path.is_file() and os.access(path, os.X_OK)):
                    raise pytest.UsageError(f"opspec: --opspec-binary {path} is not an executable file")
                self.program = str(path)
            else:
                try:
                    self.program = binary()
                except BinaryNotFound as error:
                    raise pytest.UsageError(f"opspec: {error}") from None
        return self.program

    def _env(self):
        env = dict(os.environ)
        # The worker runs the library in this interpreter unless the adapter names another
        # (python=PATH), so the checks see what the tests see; the project's root is importable
        # as it is for `python -m pytest`.
        env.setdefault("OPSPEC_PYTHON", sys.executable)
        paths = [str(self.config.rootpath)]
        if env.get("PYTHONPATH"):
            paths.append(env["PYTHONPATH"])
        env["PYTHONPATH"] = os.pathsep.join(paths)
        return env

    # -- collection ----------------------------------------------------------------------

    def list_ids(self):
        args = [self._program(), "list", *self.settings.selection_args()]
        if self.settings.filter:
            args += ["--filter", self.settings.filter]
        try:
            done = subprocess.run(args, capture_output=True, text=True, env=self._env(), timeout=600)
        except OSError as error:
            raise pytest.UsageError(f"opspec: could not start {args[0]}: {error}") from None
        except subprocess.TimeoutExpired:
            raise pytest.UsageError(f"opspec: `{shlex.join(args)}` did not finish in 600 s") from None
        if done.returncode != 0:
            raise pytest.UsageError(
                f"opspec: `{shlex.join(args)}` exited {done.returncode}:\n{done.stderr.strip()}"
            )
        self.listed = [line.strip() for line in done.stdout.splitlines() if line.strip()]
        return self.listed

    # -- the run -------------------------------------------------------------------------

    def _selection_filter(self, selected):
        """A --filter selecting exactly `selected` among the listed ids (None: all of them)."""
        if len(selected) == len(self.listed):
            return self.settings.filter, None
        ids = sorted(selected)
        pattern = "{" + ",".join(ids) + "}"
        if len(pattern) <= MAX_FILTER_CHARS:
            return pattern, None
        # Factor out the longest prefix the ids share, up to a ':'.
        prefix = os.path.commonprefix(ids)
        prefix = prefix[: prefix.rfind(":") + 1]
        pattern = prefix + "{" + ",".join(i[len(prefix):] for i in ids) + "}"
        if len(pattern) <= MAX_FILTER_CHARS:
            return pattern, None
        note = (
            f"{len(selected)} of {len(self.listed)} checks are selected, too many to name on one "
            "command line: opspec runs all of them and the plugin reports the selected ones"
        )
        return self.settings.filter, note

    def run(self, items):
        if self.records is not None:
            return
        self.records = {}
        selected = {item.check_id for item in items}
        if not selected:
            return
        settings = self.settings
        settings.report.mkdir(parents=True, exist_ok=True)
        results = settings.report / "results.jsonl"
        if results.exists():
            results.unlink()
        filt, self.filter_note = self._selection_filter(selected)
        args = [self._program(), "run", *settings.selection_args(), "--out", str(settings.report),
                "--gate", settings.gate, "--allow-skips"]
        if filt:
            args += ["--filter", filt]
        if settings.timeout is not None:
            args += ["--timeout", f"{settings.timeout:g}"]
        args += settings.run_args
        shown = shlex.join(args)
        if len(shown) > 300:
            shown = shown[:300] + f"… ({len(shown)} characters)"
        self._say(f"opspec: running {len(selected)} checks: {shown}")
        start = time.monotonic()
        try:
            with open(self.log, "w", encoding="utf-8") as log:
                done = subprocess.run(args, stdout=log, stderr=subprocess.STDOUT, env=self._env())
        except OSError as error:
            self.run_error = f"opspec could not start: {args[0]}: {error}"
            self._say(f"opspec: {self.run_error}")
            return
        finally:
            self.seconds = time.monotonic() - start
        self.exit_code = done.returncode
        tail = self._log_tail(40)
        if not results.is_file():
            self.run_error = (
                f"opspec run exited {done.returncode} and wrote no {results}; the end of "
                f"its output ({self.log}):\n{tail}"
            )
            self._say(f"opspec: {self.run_error}")
            return
        try:
            with open(results, encoding="utf-8") as file:
                for number, line in enumerate(file, 1):
                    line = line.strip()
                    if not line:
                        continue
                    record = json.loads(line)
                    if record.get("record") == "run":
                        self.run_info = record.get("info", {})
                    elif record.get("record") == "check":
                        self.records[record["id"]] = record
        except (OSError, ValueError, KeyError) as error:
            self.run_error = f"could not read {results} (line {number}): {error}"
        self.ran_ids = len(self.records)
        if self.exit_code not in (0, 1):
            self.run_error = f"opspec run exited {self.exit_code}; the end of its output ({self.log}):\n{tail}"
        summary = [line for line in tail.splitlines() if line.strip()][-3:]
        for line in summary:
            self._say(f"opspec: {line}")

    def _log_tail(self, lines):
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _say(self, line):
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line)
        else:
            print(line, file=sys.stderr)

    def rerun_command(self, check_id):
        rerun = getattr(self, "run_info", {}).get("rerun") or {}
        program = rerun.get("invocation") or "opspec"
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted((rerun.get("environment") or {}).items()))
        adapters = " ".join(
            f"--adapter {shlex.quote(f'{name}={spec}')}" for name, spec in sorted((rerun.get("adapters") or {}).items())
        )
        expectations = " ".join(f"--expectations {shlex.quote(str(p))}" for p in self.settings.expectations)
        parts = [env, program, "run", adapters, expectations, "--exact", check_id]
        return " ".join(p for p in parts if p)


class OpspecCollector(pytest.Collector):
    """The parent of the opspec items (node id ``opspec``), so ``-k opspec`` selects them all."""

    def collect(self):
        return []


class OpspecCheckFailed(Exception):
    """A check that opspec failed; its text is the check's report."""


class OpspecItem(pytest.Item):
    def __init__(self, *, check_id, state, **kwargs):
        super().__init__(**kwargs)
        self.check_id = check_id
        self.state = state
        self.add_marker(pytest.mark.opspec)

    def reportinfo(self):
        return self.path, None, f"opspec check {self.check_id}"

    def runtest(self):
        state = self.state
        if state.records is None:
            state.run([self])
        record = state.records.get(self.check_id)
        if record is None:
            if state.run_error:
                raise OpspecCheckFailed(f"{self.check_id}: no result: {state.run_error}")
            raise OpspecCheckFailed(
                f"{self.check_id}: opspec run (exit {state.exit_code}) wrote no result for this "
                f"check; see {state.log}"
            )
        status = record.get("status")
        self.user_properties.append(("opspec_status", status))
        if record.get("tier"):
            self.user_properties.append(("opspec_tier", record["tier"]))
        if status == "pass":
            return
        if status == "known_deviation":
            deviation = record.get("deviation") or {}
            reason = " ".join((deviation.get("does") or record.get("message") or "known deviation").split())
            where = deviation.get("location")
            pytest.xfail(f"known deviation ({where}): {reason}" if where else f"known deviation: {reason}")
        if status == "skip":
            pytest.skip(record.get("message") or "skipped by opspec")
        text = describe(record, state.rerun_command(self.check_id))
        if status == "fail":
            tier = record.get("tier") or "must"
            if TIER_RANK.get(tier, 0) > TIER_RANK[state.settings.gate]:
                # Below the gate: opspec's own JUnit lists such a check as a passing case with
                # its report; so does the plugin.
                self.add_report_section("call", SECTION, f"below gate {state.settings.gate}:\n{text}")
                return
        raise OpspecCheckFailed(text)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, OpspecCheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)


def describe(record, rerun):
    """A check's report, from its results.jsonl record (docs/RESULTS.md)."""
    lines = []
    status = record.get("status")
    tier = record.get("tier")
    head = f"{record.get('id')} {status}" + (f" ({tier})" if tier else "")
    message = record.get("message") or ""
    lines.append(f"{head}: {message}" if message else head)
    citation = record.get("citation") or {}
    if citation:
        row = citation.get("row")
        source = citation.get("source")
        location = citation.get("location")
        lines.append(f"  row:      {row} ({source}; {location})")
        if citation.get("text"):
            lines.append(f"  text:     {citation['text']}")
    deviation = record.get("deviation")
    if deviation:
        lines.append(f"  listed:   {deviation.get('location')}: {' '.join((deviation.get('does') or '').split())}")
    if record.get("failed_inputs"):
        lines.append(f"  failing inputs: {record['failed_inputs']} of {record.get('inputs')}")
    for failure in record.get("failures") or []:
        lines.append(f"  - inputs:    {'; '.join(failure.get('inputs') or [])}")
        lines.append(f"    expected:  {failure.get('expected')}")
        lines.append(f"    actual:    {failure.get('actual')}")
        if failure.get("steps") is not None:
            lines.append(f"    steps:     {failure.get('steps')}")
        if failure.get("tier"):
            lines.append(f"    tier:      {failure['tier']}: {failure.get('authority') or ''}")
        if failure.get("reproduce"):
            lines.append(f"    reproduce: {failure['reproduce']}")
    for warning in record.get("warnings") or []:
        lines.append(f"  library warning: {warning}")
    lines.append(f"  rerun the check: {rerun}")
    return "\n".join(lines)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    state = config.stash.get(_KEY, None)
    if state is None:
        return
    # An ini-configured adapter adds the checks to a plain `pytest`, not to a run that names
    # its own test files (`pytest tests/test_foo.py`); --opspec-adapter always adds them.
    args_source = getattr(pytest.Config, "ArgsSource", None)  # pytest >= 7.4
    explicit_paths = args_source is not None and config.args_source == args_source.ARGS
    if not state.settings.from_command_line and explicit_paths:
        return
    parent = OpspecCollector.from_parent(session, name="opspec", nodeid="opspec")
    checks = [
        OpspecItem.from_parent(parent, name=check_id, nodeid=f"opspec::{check_id}", check_id=check_id, state=state)
        for check_id in state.list_ids()
    ]
    # Report the collector as collected, so "collected N items" and the other collection
    # listeners count the checks; -k/-m deselection runs after this hook and sees them.
    config.hook.pytest_collectreport(
        report=pytest.CollectReport(nodeid="opspec", outcome="passed", longrepr=None, result=checks)
    )
    items.extend(checks)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    state = session.config.stash.get(_KEY, None)
    if state is None or session.config.option.collectonly:
        return None
    items = [item for item in session.items if isinstance(item, OpspecItem)]
    if items:
        state.run(items)
    return None


def pytest_terminal_summary(terminalreporter, config):
    state = config.stash.get(_KEY, None)
    if state is None or state.records is None or state.seconds is None:
        return
    report = state.settings.report
    terminalreporter.write_sep("-", "opspec")
    if state.filter_note:
        terminalreporter.write_line(f"note: {state.filter_note}")
    terminalreporter.write_line(
        f"{state.ran_ids} checks in {state.seconds:.1f} s (opspec exit {state.exit_code}); "
        f"report: {report / 'index.html'}; results: {report / 'results.jsonl'}; log: {state.log}"
    )
