"""The Python worker against small fake array-API namespaces (``fakes/``), one per problem a
real library gave it, end to end: the real ``opspec`` binary runs each through
``--adapter 'python:module=fake_… python=<this interpreter>'`` and the tests read its
``results.jsonl`` (docs/RESULTS.md).

    ~/.cache/opspec-python/bin/python -m unittest discover -s adapters/python/tests

The binary is ``$OPSPEC_BIN``, else ``target/release/opspec`` under the repository root
(``cargo build --release --bin opspec``; the worker is embedded in it, so rebuild after
editing the worker). Without it the end-to-end tests are skipped, saying so."""

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
FAKES = os.path.join(HERE, "fakes")
BIN = os.environ.get("OPSPEC_BIN", os.path.join(ROOT, "target", "release", "opspec"))
sys.path.insert(0, os.path.join(ROOT, "adapters", "python"))


class Run:
    """One ``opspec run``: its exit status, its terminal output and its check records by id."""

    def __init__(self, spec, filter_, pythonpath=True):
        out = tempfile.mkdtemp(prefix="opspec-worker-test-")
        env = dict(os.environ)
        if pythonpath:
            env["PYTHONPATH"] = FAKES
        else:
            env.pop("PYTHONPATH", None)
        command = [BIN, "run", "--suite", "array-api", "--no-tables", "--adapter",
                   f"{spec} python={sys.executable}", "--filter", filter_, "--out", out]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        self.rc, self.output = done.returncode, done.stdout + done.stderr
        self.checks, self.info = {}, {}
        with open(os.path.join(out, "results.jsonl")) as f:
            for line in f:
                record = json.loads(line)
                if record["record"] == "check":
                    self.checks[record["id"]] = record
                elif record["record"] == "run":
                    self.info = record["info"]

    def status(self, id_):
        return self.checks[id_]["status"]

    def statuses(self):
        return {r["status"] for r in self.checks.values()}


def said(record):
    """A check record's message and its failures' actual values, as one text."""
    return " ".join([record.get("message", "")] + [f["actual"] for f in record.get("failures", [])])


@unittest.skipUnless(os.path.isfile(BIN), f"no opspec binary at {BIN} (cargo build --release --bin opspec, "
                                          "or set OPSPEC_BIN)")
class EndToEnd(unittest.TestCase):
    def assertAll(self, run, status, least):
        self.assertGreaterEqual(len(run.checks), least, run.output[-2000:])
        bad = {i: (r["status"], r.get("message", "")[:300]) for i, r in run.checks.items() if r["status"] != status}
        self.assertEqual(bad, {}, run.output[-2000:])

    def test_results_through_the_arrays_own_export(self):
        # fake_export's arrays have only unwrap_numpy(): NumPy alone would make 0-d object
        # arrays of them.
        run = Run("python:module=fake_export", "array-api:fake-export:{add,multiply,sqrt}:{f32,i32}:*")
        self.assertAll(run, "pass", 49)
        self.assertEqual(run.rc, 0)
        # An export that is there and fails is named with its error, before any advice.
        broken = Run("python:module=fake_export", "array-api:fake-export:add:u64:edges")
        self.assertIn("adapter error at step converting the result: every export of fake_export.ExportArray this result "
                      "has failed: unwrap_numpy(): ValueError: no propagated value available (it has no __dlpack__, "
                      "__array__,", broken.checks["array-api:fake-export:add:u64:edges"]["message"])

    def test_results_nothing_reads_are_refused_naming_the_type(self):
        run = Run("python:module=fake_opaque", "array-api:fake-opaque:add:f32:*")
        self.assertAll(run, "skip", 20)
        message = run.checks["array-api:fake-opaque:add:f32:edges"]["message"]
        self.assertIn("converting the result", message)
        self.assertIn("results of type fakelib.Array have neither __dlpack__ nor __array__", message)
        self.assertIn("unwrap_numpy()", message)  # what was looked for
        self.assertIn("export=METHOD", message)  # and how to supply it
        self.assertEqual(run.rc, 3)

    def test_foreign_shape_error_wording_is_a_shape_mismatch(self):
        # fake_errors raises its own DimensionError("bad input shape for polyadic operator")
        # for operands that do not broadcast; the array API asks only for an exception.
        run = Run("python:module=fake_errors", "array-api:fake-errors:{numpy,nextafter}:*")
        for case in ("trailing-mismatch", "leading-pair-mismatch", "middle-pair-mismatch"):
            self.assertEqual(run.status(f"array-api:fake-errors:numpy:-:{case}"), "pass", run.output[-3000:])
        self.assertAll(Run("python:module=fake_errors", "array-api:fake-errors:numpy:*"), "pass", 20)
        # An error no rule knows is shown with the kind it was taken for.
        message = run.checks["array-api:fake-errors:nextafter:f32:edges"]["message"]
        self.assertIn("DimensionError: kernel queue exhausted (code 7)", message)
        self.assertIn("[taken as other: neither its type nor its message is one the worker knows]", message)

    def test_a_library_that_kills_its_process_fails_even_where_an_error_is_allowed(self):
        # fake_sigfpe's integer floor_divide by zero kills Python with SIGFPE; the array API
        # allows any value or an error for x // 0, and a dead process gives neither.
        run = Run("python:module=fake_sigfpe", "array-api:fake-sigfpe:floor_divide:i8:{edges,random,by-zero}")
        by_zero = run.checks["array-api:fake-sigfpe:floor_divide:i8:by-zero"]
        self.assertEqual((by_zero["status"], by_zero["tier"]), ("fail", "must"), run.output[-3000:])
        self.assertIn("no result: crashed", by_zero["message"])
        self.assertIn("SIGFPE", by_zero["message"])
        for case in ("edges", "random"):
            self.assertEqual(run.status(f"array-api:fake-sigfpe:floor_divide:i8:{case}"), "pass", run.output[-3000:])
        self.assertEqual(run.rc, 1)

    def test_views_do_not_go_through_the_librarys_take(self):
        # fake_take's take returns the whole source for a one-element index array.
        run = Run("python:module=fake_take", "array-api:fake-take:{add,multiply,equal}:{f32,i16,bool}:layouts")
        self.assertAll(run, "pass", 6)
        self.assertIn("copied by the adapter", run.output)

    def test_a_failing_adapter_step_is_named_not_blamed_on_the_operation(self):
        # fake_scaffold's asarray refuses 0-d arrays: the layouts checks have 0-d operands.
        run = Run("python:module=fake_scaffold", "array-api:fake-scaffold:add:f32:{layouts,edges}")
        self.assertEqual(run.status("array-api:fake-scaffold:add:f32:edges"), "pass")
        layouts = run.checks["array-api:fake-scaffold:add:f32:layouts"]
        self.assertEqual(layouts["status"], "fail")
        actual = [f["actual"] for f in layouts["failures"]]
        self.assertIn("error adapter: adapter error at step building operand x1 (f32 []) with fake_scaffold.asarray: "
                      "ValueError: 0-d arrays are not supported by this asarray", actual)
        # The terminal counts the checks each failed step touched.
        self.assertIn("\nsteps of adapter fake-scaffold's own that failed (not the operations under test; the checks' "
                      "reports say which operands):\n  1 check: building operand x1 with fake_scaffold.asarray\n",
                      run.output)

    def test_library_warnings_reach_the_run(self):
        run = Run("python:module=fake_warn", "array-api:fake-warn:{acos,asin}:f64:edges")
        # acos warns, then returns a lossy result: the value check fails with the warning in
        # its record, its failure text and the terminal's count.
        acos = run.checks["array-api:fake-warn:acos:f64:edges"]
        self.assertEqual(acos["status"], "fail")
        lossy = ("UserWarning: 'acos' is not implemented for 'float64' in fakeruntime. A lossy cast to 'float32' "
                 "is used instead")
        self.assertEqual(acos["warnings"], [lossy])
        self.assertIn(f"  library warning: {lossy}\n", run.output)
        self.assertIn(f"library warnings during adapter fake-warn's calls:\n  1 check: {lossy}\n", run.output)
        # (Each distinct warning is written once per worker, at its first request: here the
        # start-up probe.)
        self.assertIn("[fake-warn] opspec_worker: library warning during the start-up probe of acos (tensors, f64): "
                      "UserWarning: 'acos' is not implemented for 'float64' in fakeruntime. A lossy cast to 'float32' "
                      "is used instead", run.output)
        self.assertRegex(run.output, r"opspec_worker:   \d+ request\(s\): UserWarning: 'acos' is not implemented")
        # asin warns, then raises: the warning is in the check's record too.
        asin = run.checks["array-api:fake-warn:asin:f64:edges"]
        self.assertEqual(asin["status"], "fail")
        self.assertEqual(asin["warnings"], ["UserWarning: 'asin' has no float64 kernel in fakeruntime"])

    def test_renamed_functions_dtypes_and_a_setup_call_as_options(self):
        checks = "array-api:fake-renamed:{pow,atan2,acos,logical_and,add}:{f32,bool}:*"
        plain = Run("python:module=fake_renamed", checks)
        self.assertGreaterEqual(len(plain.checks), 40, plain.output[-2000:])
        messages = {r["message"] for r in plain.checks.values() if r["status"] == "skip"}
        self.assertIn("skipped: fake_renamed has no pow; if the library has it under another name, pass "
                      "names=pow:ITS_NAME", messages)
        self.assertIn("skipped: no dtype bool: looked for fake_renamed.bool; if the library names it otherwise pass "
                      "dtypes=bool:NAME (or a dotted path), or dtypes=numpy if it takes NumPy's dtypes", messages)
        # add is there, and raises until the setup call: its checks fail, naming the error.
        failed = {i: r for i, r in plain.checks.items() if r["status"] != "skip"}
        self.assertEqual(set(failed), {i for i in plain.checks if ":add:" in i})
        self.assertTrue(all(r["status"] == "fail" and "RuntimeError: call fake_renamed.enable_behavior() first"
                            in said(r) for r in failed.values()), failed)
        # path= instead of PYTHONPATH, so that the printed reproduce command runs as it is.
        options = (f"python:module=fake_renamed path={FAKES} names=pow:power,atan2:arctan2,acos:arccos "
                   "dtypes=bool:bool_ setup=fake_renamed.enable_behavior")
        run = Run(options, checks, pythonpath=False)
        self.assertAll(run, "pass", 40)
        self.assertIn("array-api:fake-renamed:logical_and:bool:edges", run.checks)

    def test_device_option_puts_operands_on_that_device(self):
        # array_api_strict's devices: CPU_DEVICE, device1 (arrays there refuse __array__) and
        # no_float64 (which holds no float64).
        checks = "array-api:array-api-strict:{add,sqrt}:{f32,f64}:{edges,layouts}"
        run = Run("python:array_api_strict device=device1", checks)
        self.assertAll(run, "pass", 6)
        self.assertTrue(any("on array_api_strict.Device('device1')" in a for a in run.info["adapters"]), run.info)
        narrow = Run("python:array_api_strict device=no_float64", checks)
        self.assertEqual({i for i, r in narrow.checks.items() if r["status"] == "skip"},
                         {i for i in narrow.checks if ":f64:" in i}, narrow.output[-2000:])
        self.assertIn("building operand x1 (f64 [2]) with array_api_strict.asarray on "
                      "array_api_strict.Device('no_float64'): ValueError: Device array_api_strict.Device('no_float64') "
                      "does not support dtype=array_api_strict.float64",
                      narrow.checks["array-api:array-api-strict:add:f64:edges"]["message"])
        self.assertAll(Run("python:array_api_strict device=0", checks), "pass", 6)  # the 0th: CPU_DEVICE

    def test_a_device_no_one_has_is_refused_with_the_list(self):
        run = Run("python:array_api_strict device=gpu", "array-api:array-api-strict:add:f32:edges")
        self.assertEqual(run.statuses(), {"unavailable"})
        self.assertIn("device=gpu names none of array_api_strict's devices (0: array_api_strict.Device('CPU_DEVICE'); "
                      "1: array_api_strict.Device('device1');", run.output)

    @unittest.skipUnless(importlib.util.find_spec("jax"), "JAX is not installed in this interpreter")
    def test_jax_on_a_named_device(self):
        run = Run("python:jax device=cpu:0", "array-api:jax:{add,multiply}:{i16,i32}:{edges,layouts}")
        self.assertAll(run, "pass", 4)
        self.assertTrue(any(", cpu:0, jax_enable_x64=0" in a for a in run.info["adapters"]), run.info)

    def test_a_binding_module(self):
        binding = os.path.join(FAKES, "tensorlib_opspec.py")
        spec = f"tensorlib=python:module=fake_tensorlib.functional binding={binding}"
        run = Run(spec, "array-api:tensorlib:{multiply,subtract,negative,positive}:{f32,i32}:*")
        self.assertAll(run, "pass", 40)
        self.assertTrue(any("fake_tensorlib.functional 3.1-test" in a for a in run.info["adapters"]), run.info)
        # Without it the worker says what is missing and how to supply it.
        bare = Run("tensorlib=python:module=fake_tensorlib.functional", "array-api:tensorlib:multiply:f32:edges")
        self.assertEqual(bare.statuses(), {"unavailable"})
        self.assertIn("fake_tensorlib.functional has no asarray", bare.output)
        self.assertIn("binding module with asarray(array)", bare.output)


    def test_a_function_that_exists_and_raises_fails_its_checks(self):
        # fake_raises' add raises RuntimeError on every call, its clip ValueError for array
        # bounds: neither refuses a dtype, so their checks run and fail at the must tier,
        # naming the error; so does sign, whose result nothing reads. Its multiply refuses
        # float16 by name: unsupported there.
        run = Run("python:module=fake_raises", "array-api:fake-raises:{add,clip,multiply}:{f16,f32}:*")
        raised = {"add": "RuntimeError: add kernel failed to launch (code 3)",
                  "clip": "ValueError: clip: min and max must be Python numbers, not arrays"}
        for op, error in raised.items():
            checks = {i: r for i, r in run.checks.items() if f":{op}:" in i}
            self.assertGreaterEqual(len(checks), 10, run.output[-2000:])
            for id_, record in checks.items():
                self.assertEqual((record["status"], record["tier"]), ("fail", "must"), id_)
                self.assertIn(error, said(record), id_)
            self.assertIn(f"opspec_worker: the start-up probe of {op} raised {error} for ", run.output)
        self.assertEqual(run.rc, 1)
        sign = Run("python:module=fake_raises", "array-api:fake-raises:sign:f32:edges")
        self.assertEqual(sign.status("array-api:fake-raises:sign:f32:edges"), "fail")
        self.assertIn("converting the result: results of type NoneType have neither",
                      said(sign.checks["array-api:fake-raises:sign:f32:edges"]))
        multiply = {i.split(":")[3]: r for i, r in run.checks.items() if ":multiply:" in i and i.endswith(":edges")}
        self.assertEqual(multiply["f32"]["status"], "pass")
        self.assertEqual(multiply["f16"]["status"], "skip")
        self.assertEqual(multiply["f16"]["message"], "skipped: TypeError: multiply does not accept dtype float16 "
                                                     "[taken as unsupported: a TypeError naming float16]")

    @unittest.skipUnless(importlib.util.find_spec("pytest"), "pytest is not installed in this interpreter")
    def test_the_pytest_plugin_fails_the_items_of_a_function_that_raises(self):
        # The plugin as a project's CI runs it (from the source tree, not the wheel): the items
        # of add, which raises on every call, fail; multiply's f16 item is skipped.
        project = tempfile.mkdtemp(prefix="opspec-plugin-test-")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), FAKES]))
        command = [sys.executable, "-m", "pytest", "-p", "opspec.pytest_plugin", "-p", "no:cacheprovider", "-q",
                   "--opspec-adapter", "python:module=fake_raises", "--opspec-binary", BIN, "--opspec-suite",
                   "array-api", "--opspec-filter", "array-api:fake-raises:{add,multiply}:{f16,f32}:edges",
                   "--junitxml", os.path.join(project, "junit.xml")]
        done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 1, done.stdout[-3000:] + done.stderr[-2000:])
        outcomes = {}
        for case in ET.parse(os.path.join(project, "junit.xml")).getroot().iter("testcase"):
            marks = [(c.tag, c.get("message", "") + (c.text or "")) for c in case if c.tag in ("failure", "skipped")]
            outcomes[case.get("name")] = marks[0] if marks else ("passed", "")
        self.assertEqual({n: o[0] for n, o in outcomes.items()}, {
            "array-api:fake-raises:add:f16:edges": "failure", "array-api:fake-raises:add:f32:edges": "failure",
            "array-api:fake-raises:multiply:f16:edges": "skipped", "array-api:fake-raises:multiply:f32:edges": "passed",
        })
        add = outcomes["array-api:fake-raises:add:f32:edges"]
        self.assertIn("RuntimeError: add kernel failed to launch (code 3)", add[1])

class ErrorKinds(unittest.TestCase):
    """The order of worker.error_kind's rules, on exceptions of real libraries' types."""

    def setUp(self):
        from opspec_worker import worker

        self.kind = worker.error_kind

    def test_the_type_decides_before_the_words(self):
        # "out of bounds" would say out_of_range; a TypeError is dtype_mismatch first.
        self.assertEqual(self.kind(TypeError("value out of bounds for int8"))[0], "dtype_mismatch")
        self.assertEqual(self.kind(NotImplementedError("could not be broadcast"))[0], "unsupported")

    def test_words_refine_a_type_only_into_a_narrower_kind(self):
        kind, why = self.kind(IndexError("arrays used as indices must be of integer (or boolean) type"))
        self.assertEqual((kind, why), ("index_dtype", "a IndexError saying 'must be of integer'"))
        self.assertEqual(self.kind(IndexError("index 9 is out of bounds for axis 0"))[0], "out_of_range")
        self.assertEqual(self.kind(TypeError("ufunc 'add' did not contain a loop"))[0], "unsupported")

    def test_words_alone_and_the_rest(self):
        class InvalidArgumentError(Exception):
            pass

        self.assertEqual(self.kind(InvalidArgumentError("Incompatible shapes: [2] vs. [3]")),
                         ("shape_mismatch", "the words 'incompatible shapes'"))
        self.assertEqual(self.kind(RuntimeError("kernel exploded"))[0], "other")

    def test_operands_that_do_not_broadcast_make_any_exception_a_shape_mismatch(self):
        kind, why = self.kind(TypeError("weird"), mismatch="the operand shapes [2] and [3] do not broadcast")
        self.assertEqual(kind, "shape_mismatch")
        self.assertIn("[2] and [3] do not broadcast", why)

    def test_a_bindings_exception_classes_come_before_type_and_words(self):
        class KernelMissing(TypeError):
            pass

        self.assertEqual(self.kind(KernelMissing("x"), by_class={KernelMissing: "unsupported"})[0], "unsupported")


class DtypeRefusals(unittest.TestCase):
    """worker.dtype_refusal: which errors of the start-up probe refuse the dtype itself (the
    pair is unsupported) and which leave it supported, to fail its checks."""

    def setUp(self):
        from opspec_worker import worker

        self.refusal = worker.dtype_refusal

    def test_a_refusal_in_a_librarys_words_or_naming_the_dtype(self):
        numpy = TypeError("ufunc 'bitwise_and' not supported for the input types, and the inputs could not be safely "
                          "coerced to any supported types according to the casting rule ''safe''")
        self.assertEqual(self.refusal(numpy, "f32"), "its message says 'not supported for the input types'")
        self.assertIsNotNone(self.refusal(RuntimeError("\"abs_cpu\" not implemented for 'Half'"), "f16"))
        strict = TypeError("Only integer or boolean dtypes are allowed in bitwise_and(...). Got "
                           "array_api_strict.float64 and array_api_strict.float64.")
        self.assertIsNotNone(self.refusal(strict, "f64"))
        jax = TypeError("bitwise_and does not accept dtype float32. Accepted dtypes are subtypes of integer, bool.")
        self.assertEqual(self.refusal(jax, "f32"), "a TypeError naming float32")
        boolean = TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor")
        self.assertEqual(self.refusal(boolean, "bool"), "a TypeError naming boolean")
        # JAX refuses complex and bool operands with ValueErrors.
        hypot = ValueError("jnp.hypot is not well defined for complex-valued inputs.")
        self.assertEqual(self.refusal(hypot, "c64"), "a ValueError naming complex-valued")
        self.assertEqual(self.refusal(ValueError("data type <class 'numpy.bool'> not inexact"), "bool"),
                         "a ValueError naming bool")

    def test_other_errors_are_not_refusals(self):
        self.assertIsNone(self.refusal(RuntimeError("add kernel failed to launch (code 3)"), "f32"))
        self.assertIsNone(self.refusal(ValueError("clip: min and max must be Python numbers, not arrays"), "f32"))
        self.assertIsNone(self.refusal(TypeError("clip(): argument 'min' must be Number, not Tensor"), "f32"))
        self.assertIsNone(self.refusal(NotImplementedError("array bounds are not implemented"), "f32"))
        # The dtype named must be this one, by a type error.
        self.assertIsNone(self.refusal(TypeError("does not accept dtype bfloat16"), "f16"))
        self.assertIsNone(self.refusal(ValueError("float32 operands must be contiguous"), "f32"))
        self.assertIsNone(self.refusal(TypeError("cannot add int8 and float32"), "u8"))
        # A library's refusal counts only for the dtype it names: PaddlePaddle's uint16 is bfloat16.
        paddle = RuntimeError("(NotFound) The kernel with key (CPU, Undefined(AnyLayout), bfloat16) of kernel `abs` "
                              "is not registered. Selected wrong DataType `bfloat16`.")
        self.assertIsNone(self.refusal(paddle, "u16"))
        self.assertEqual(self.refusal(paddle, "bf16"), "PaddlePaddle's refusal of bfloat16")
        tf = RuntimeError("Value for attr 'T' of float is not in the list of allowed values: double")
        self.assertEqual(self.refusal(tf, "f32"), "TensorFlow's refusal of float")
        self.assertIsNone(self.refusal(tf, "f64"))
        # MegEngine's "bad dtype" counts only as a whole first line.
        self.assertIsNone(self.refusal(RuntimeError("bad dtype for the index operand"), "u16"))

    def test_a_bindings_exception_class_for_unsupported(self):
        class KernelMissing(Exception):
            pass

        self.assertEqual(self.refusal(KernelMissing("x"), "f32", {KernelMissing: "unsupported"}),
                         "the binding's errors[KernelMissing]")
        self.assertIsNone(self.refusal(KernelMissing("x"), "f32", {KernelMissing: "other"}))


class StartUpProbe(unittest.TestCase):
    """Worker.probe in this process on the fakes (the working tree's worker, no binary): which
    errors of a library's call make (operation, form, dtype) unsupported."""

    def probe(self, module, op, dtype, form="tensors"):
        from opspec_worker import backends, worker

        if FAKES not in sys.path:
            sys.path.insert(0, FAKES)
        with contextlib.redirect_stderr(io.StringIO()):
            return worker.Worker(backends.make([f"module={module}"])).probe(op, form, dtype)

    def test_library_refusals_of_the_probed_dtype_are_unsupported(self):
        refused = {
            ("add", "f16"): "RuntimeError: (NotFound) The kernel with key (CPU, Undefined(AnyLayout), float16) of kernel "
                            "`add` is not registered. Selected wrong DataType `float16`. Paddle support following "
                            "DataTypes: int16, float64, complex128, int32, uint8, float32, complex64, bool, int64, int8. "
                            "[taken as unsupported: PaddlePaddle's refusal of float16]",
            ("abs", "u8"): "InvalidArgumentError: Value for attr 'T' of uint8 is not in the list of allowed values: "
                           "bfloat16, half, float, double, int8, int16, int32, int64 "
                           "[taken as unsupported: TensorFlow's refusal of uint8]",
            ("nextafter", "f16"): "InvalidArgumentError: Value for attr 'T' of half is not in the list of allowed "
                                  "values: double, float [taken as unsupported: TensorFlow's refusal of half]",
            ("negative", "u16"): "RuntimeError: bad dtype [taken as unsupported: its message's first line is 'bad dtype']",
        }
        for (op, dtype), why in refused.items():
            self.assertEqual(self.probe("fake_refusals", op, dtype), (why, None), (op, dtype))
        # The scalar form's call has the same operand dtype: refused there too.
        self.assertIn("[taken as unsupported: PaddlePaddle's refusal of float16]",
                      self.probe("fake_refusals", "add", "f16", form="scalar")[0])
        # The other dtypes of the same functions run.
        for op, dtype in (("add", "f32"), ("abs", "i8"), ("nextafter", "f32"), ("negative", "i16")):
            self.assertEqual(self.probe("fake_refusals", op, dtype), (None, None), (op, dtype))

    def test_errors_that_refuse_no_probed_dtype_stay_supported(self):
        self.assertEqual(self.probe("fake_refusals", "multiply", "u16"),
                         (None, "RuntimeError: dtype promotion rule between different signedness is undefined: "
                                "Uint16 Int8"))
        # TensorFlow's words, for a dtype the probe's operands (int8) do not have.
        self.assertEqual(self.probe("fake_refusals", "atan2", "i8"),
                         (None, "InvalidArgumentError: Value for attr 'T' of int64 is not in the list of allowed "
                                "values: bfloat16, half, float, double"))

    def test_a_function_that_raises_not_implemented_is_unsupported(self):
        # ndonnx's stubs: `raise NotImplementedError`, with or without a message.
        for dtype in ("f32", "i32"):
            self.assertEqual(self.probe("fake_stubs", "atan2", dtype),
                             ("NotImplementedError: (no message) [taken as unsupported: raises NotImplementedError: "
                              "the library does not implement it]", None))
        why, error = self.probe("fake_stubs", "copysign", "f64", form="scalar")
        self.assertEqual(error, None)
        self.assertEqual(why, "NotImplementedError: copysign needs an operator this backend lacks "
                              "[taken as unsupported: raises NotImplementedError: the library does not implement it]")

    def test_any_other_error_of_the_call_stays_supported(self):
        for form in ("tensors", "scalar"):
            self.assertEqual(self.probe("fake_stubs", "add", "f32", form),
                             (None, "ValueError: add: graph construction failed (node 3)"))
        self.assertEqual(self.probe("fake_stubs", "multiply", "f32"), (None, None))


if __name__ == "__main__":
    unittest.main()
