"""An interrupt through the client, and the kernel's own libraries hidden from user code.

The catalogue story runs once, in a Jupyter front end: the browser test (kernel/src/test/browser/run-all.mjs) runs the
twelve notebooks in order in JupyterLab, fails on error output or a notebook with no table or chart, and checks the
experiment folder they leave (plan, devlog, step markers, records, charts, stack, PR texts, `gluelab pr check`). The
headless runner, `gluelab run`, is the kernel part's: NotebookRunnerTest, and ModelNotebooksTest's whole model story
with its write-up and `pr check`. Running the catalogue story here a second time, beside the other parts on CI's two
cores, checked nothing those two do not."""
import threading
import time
import unittest

import jupyter_client


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
