"""Issue #9 through real clients: a cell cannot end the kernel or the headless runner, errors lead
with the user's exception, Run All stops at an error, and `gluelab run` handles batches and signals."""
import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

import jupyter_client
import nbformat
from jupyter_client.kernelspec import KernelSpecManager

EXIT_MESSAGE = "System.exit is not allowed in a cell; restart the kernel instead"


def cli_argv():
    """The gluelab CLI on the installed kernelspec's JVM, flags and classpath."""
    argv = KernelSpecManager().get_kernel_spec("gluelab").argv
    main = argv.index("gluelab.kernel.KernelMain")
    return argv[:main] + ["gluelab.cli.Main"]


def notebook(path, *cells, params=None):
    nb = nbformat.v4.new_notebook()
    if params is not None:
        c = nbformat.v4.new_code_cell(params)
        c.metadata["tags"] = ["parameters"]
        nb.cells.append(c)
    nb.cells.extend(nbformat.v4.new_code_cell(c) for c in cells)
    nbformat.write(nb, path)
    return path


class KernelTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = jupyter_client.manager.start_new_kernel(kernel_name="gluelab", startup_timeout=120)

    @classmethod
    def tearDownClass(cls):
        cls.kc.stop_channels()
        cls.km.shutdown_kernel(now=True)

    def outputs(self, code):
        got = []
        reply = self.kc.execute_interactive(code, timeout=120, output_hook=got.append)
        return reply["content"], got

    def test_exit_and_halt_in_a_cell_or_its_thread_leave_the_kernel_running(self):
        for code in ("System.exit(0);", "Runtime.getRuntime().halt(3);"):
            content, _ = self.outputs(code)
            self.assertEqual("error", content["status"], code)
            self.assertIn(EXIT_MESSAGE, content["evalue"])
        content, got = self.outputs("Thread t = new Thread(() -> System.exit(1)); t.start(); t.join();")
        self.assertEqual("ok", content["status"])
        self.assertTrue(self.km.is_alive())
        content, got = self.outputs('"still alive"')
        self.assertEqual("ok", content["status"])
        self.assertTrue(any("still alive" in str(m["content"].get("data", {})) for m in got))

    def test_errors_lead_with_the_users_exception(self):
        content, got = self.outputs("int[] z = new int[1];\nz[3] = 1;")
        self.assertEqual("ArrayIndexOutOfBoundsException", content["ename"])
        shown = [m["content"] for m in got if m["msg_type"] == "error"]
        self.assertEqual(1, len(shown))
        tb = "\n".join(shown[0]["traceback"])
        self.assertTrue(tb.startswith("java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 1 (cell line 2)"), tb)
        self.assertNotIn("jdk.jshell", tb)
        self.assertEqual(1, tb.count("out of bounds"), tb)

    def test_run_all_after_an_error_aborts_the_queued_cells(self):
        ids = [self.kc.execute('Thread.sleep(1000); throw new IllegalStateException("planned");', stop_on_error=True),
               self.kc.execute("int ranAfterError = 1;", stop_on_error=True),
               self.kc.execute("int ranAfterError = 2;", stop_on_error=True)]
        statuses = {}
        while len(statuses) < 3:
            m = self.kc.get_shell_msg(timeout=60)
            if m["parent_header"].get("msg_id") in ids:
                statuses[m["parent_header"]["msg_id"]] = m["content"]["status"]
        self.assertEqual(["error", "aborted", "aborted"], [statuses[i] for i in ids])
        content, _ = self.outputs("1 + 1")
        self.assertEqual("ok", content["status"], "the kernel runs the next request")


class RunnerTests(unittest.TestCase):
    def test_a_batch_runs_every_notebook_and_fails_if_one_failed(self):
        with tempfile.TemporaryDirectory() as d:
            a = notebook(os.path.join(d, "a.ipynb"), "tokens * 2", params="int tokens = 1;")
            b = notebook(os.path.join(d, "b.ipynb"), "System.exit(0);", "2", params="int tokens = 1;")
            c = notebook(os.path.join(d, "c.ipynb"), "3", params="long tokens = 1;")
            p = subprocess.run(cli_argv() + ["run", a, b, c, "--out", d, "-p", "tokens=256"], capture_output=True, text=True, timeout=300)
            self.assertEqual(1, p.returncode, p.stdout + p.stderr)
            self.assertIn("ok: " + a, p.stdout)
            self.assertIn("FAILED: " + b, p.stdout)
            self.assertIn("ok: " + c, p.stdout)
            done = nbformat.read(os.path.join(d, "a.out.ipynb"), as_version=4)
            self.assertEqual("512", done.cells[2].outputs[0]["data"]["text/plain"])
            self.assertEqual(1, len(nbformat.read(a, as_version=4).cells) - 1, "the input is not overwritten")

    def test_sigterm_writes_the_partial_notebook_and_exits_non_zero(self):
        with tempfile.TemporaryDirectory() as d:
            started = os.path.join(d, "started")
            nb = notebook(os.path.join(d, "slow.ipynb"), 'System.out.println("first");',
                          'Files.writeString(Path.of(%s), "");\nThread.sleep(600_000);' % json.dumps(started), "3")
            out = os.path.join(d, "out")
            p = subprocess.Popen(cli_argv() + ["run", nb, "--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 120
            while not os.path.exists(started) and time.time() < deadline:
                time.sleep(0.2)
            p.send_signal(signal.SIGTERM)
            stdout, stderr = p.communicate(timeout=60)
            self.assertEqual(143, p.returncode, stdout + stderr)
            done = nbformat.read(os.path.join(out, "slow.ipynb"), as_version=4)
            self.assertEqual("first\n", done.cells[0].outputs[0]["text"])
            self.assertEqual("stopped", done.cells[1].metadata["gluelab"]["status"])
            self.assertIn("SIGTERM", str(done.cells[1].outputs))


if __name__ == "__main__":
    unittest.main()
