"""Runs the Python-side kernel tests and ends with a plain 'N passed, N failed' line."""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py")
result = unittest.TextTestRunner(verbosity=2).run(suite)
failed = len(result.failures) + len(result.errors)
skipped = len(result.skipped)
passed = result.testsRun - failed - skipped
print(f"python: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or result.testsRun == 0 else 0)
