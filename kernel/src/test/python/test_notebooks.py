"""The notebook story through `gluelab run`, and an interrupt through the client.

The story in a Jupyter front end is the browser test's (kernel/src/test/browser/run-all.mjs): it runs the same twelve
notebooks in order in JupyterLab, fails on error output or a notebook with no table or chart, and checks the
experiment folder they leave as assert_experiment_is_whole does here, so the story is not run a third time here."""
import glob
import json
import os
import subprocess
import tempfile
import threading
import time
import unittest

import jupyter_client
import nbformat

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


STORY = sorted(glob.glob(os.path.join(ROOT, "notebooks", "[0-9][0-9]-*.ipynb")))


def gluelab_command(*args):
    """The installed kernelspec's JVM, flags and classpath, running gluelab's CLI instead of the kernel."""
    for base in os.environ.get("JUPYTER_PATH", "").split(os.pathsep):
        spec = os.path.join(base, "kernels", "gluelab", "kernel.json")
        if os.path.isfile(spec):
            with open(spec) as f:
                argv = json.load(f)["argv"]
            return argv[:argv.index("gluelab.kernel.KernelMain")] + ["gluelab.cli.Main", *args]
    raise AssertionError("no gluelab kernelspec on JUPYTER_PATH")


class StoryTests(unittest.TestCase):
    """Notebooks 00-11 run in order as one experiment by `gluelab run`."""

    def assert_experiment_is_whole(self, folder):
        self.assertTrue(os.path.isdir(folder), folder)
        for name in ("plan.json", "devlog.md", "stack.json", "findings.md", "feedback.md"):
            self.assertTrue(os.path.isfile(os.path.join(folder, name)), name + " missing in " + folder)
        steps = sorted(os.listdir(os.path.join(folder, "steps")))
        for nb in STORY:
            self.assertIn(os.path.basename(nb).replace(".ipynb", ".json"), steps, "a step left no marker")
        self.assertTrue(os.listdir(os.path.join(folder, "records")), "no record published")
        self.assertTrue(glob.glob(os.path.join(folder, "charts", "*.png")), "no chart in charts/")
        with open(os.path.join(folder, "stack.json")) as f:
            self.assertTrue(json.load(f)["stack"]["changes"], "the stack is empty")
        prs = sorted(glob.glob(os.path.join(folder, "pr", "*.md")))
        self.assertTrue(prs, "no PR text")
        for pr in prs:
            self.assertTrue(os.path.isfile(pr[:-3] + ".png"), "no chart beside " + pr)
        check = subprocess.run(gluelab_command("pr", "check", *prs), capture_output=True, text=True, timeout=120)
        self.assertEqual(0, check.returncode, check.stdout + check.stderr)

    def test_gluelab_run_runs_the_story_as_one_named_experiment(self):
        self.assertEqual(12, len(STORY), [os.path.basename(p) for p in STORY])
        with tempfile.TemporaryDirectory() as cwd:
            # The timeout is an hour: the story took 943 s at load average 23 on 2 cores, and bin/test runs it
            # beside the other parts.
            # Experiments live under the notebooks' repository (the checkout's out/experiments) unless
            # GLUELAB_HOME names another home: the test keeps its own.
            run = subprocess.run(gluelab_command("run", *STORY, "--out", os.path.join(cwd, "executed"), "-p", "experiment=ci-story", "-p", "tokens=32,128"),
                                 cwd=cwd, capture_output=True, text=True, timeout=3600, env=dict(os.environ, GLUELAB_HOME=cwd))
            self.assertEqual(0, run.returncode, run.stdout[-4000:] + run.stderr[-4000:])
            self.assertIn("all 12 notebooks ok", run.stdout)
            self.assertEqual(sorted(os.path.basename(p) for p in STORY), sorted(os.listdir(os.path.join(cwd, "executed"))))
            self.assert_experiment_is_whole(os.path.join(cwd, "out", "experiments", "ci-story"))
            self.assertFalse(os.path.exists(os.path.join(cwd, "out", "experiments", "demo")), "-p experiment reached every notebook")


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
