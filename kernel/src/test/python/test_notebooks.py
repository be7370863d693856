"""Every notebook in notebooks/ through nbclient (the real protocol), and an interrupt through the client."""
import glob
import os
import threading
import time
import unittest

import jupyter_client
import nbformat
from nbclient import NotebookClient

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


class NotebookTests(unittest.TestCase):
    def test_every_notebook_executes(self):
        books = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
        self.assertGreaterEqual(len(books), 5)
        for path in books:
            with self.subTest(notebook=os.path.basename(path)):
                nb = nbformat.read(path, as_version=4)
                NotebookClient(nb, kernel_name="gluelab", timeout=600, resources={"metadata": {"path": ROOT}}).execute()
                errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
                self.assertEqual([], errors)
                results = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type in ("execute_result", "display_data")]
                self.assertTrue(results, "no results shown")


class InterruptTests(unittest.TestCase):
    def test_interrupt_stops_a_running_cell_and_the_next_cell_runs(self):
        km, kc = jupyter_client.manager.start_new_kernel(kernel_name="gluelab", startup_timeout=120)
        try:
            threading.Timer(3.0, km.interrupt_kernel).start()
            start = time.time()
            reply = kc.execute_interactive("long n = 0; while (true) { n++; }", timeout=120)
            self.assertEqual("error", reply["content"]["status"])
            self.assertLess(time.time() - start, 60)
            outputs = []
            reply = kc.execute_interactive('"still alive"', timeout=60, output_hook=outputs.append)
            self.assertEqual("ok", reply["content"]["status"])
            self.assertTrue(any("still alive" in str(m["content"].get("data", {})) for m in outputs))
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)


class IsolationTests(unittest.TestCase):
    def test_the_kernels_protocol_libraries_are_invisible_to_user_code(self):
        km, kc = jupyter_client.manager.start_new_kernel(kernel_name="gluelab", startup_timeout=120)
        try:
            for cls in ("com.google.gson.Gson", "org.zeromq.ZMQ"):
                reply = kc.execute_interactive('Class.forName("%s")' % cls, timeout=60)
                self.assertEqual("error", reply["content"]["status"], cls + " is visible to notebook code")
            reply = kc.execute_interactive('Class.forName("tech.tablesaw.api.Table")', timeout=60)
            self.assertEqual("ok", reply["content"]["status"])
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)


if __name__ == "__main__":
    unittest.main()
