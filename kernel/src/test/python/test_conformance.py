"""The Jupyter conformance suite (jupyter_kernel_test) against the installed gluelab kernelspec."""
import unittest

import jupyter_kernel_test as jkt


class GluelabKernelTests(jkt.KernelTests):
    kernel_name = "gluelab"
    language_name = "java"
    file_extension = ".jshell"

    code_hello_world = 'System.out.println("hello, world");'
    code_stderr = 'System.err.println("error");'
    completion_samples = [{"text": "Math.ma", "matches": {"max("}}]
    complete_code_samples = ["1", "int x = 1;", "void f() {}"]
    incomplete_code_samples = ["for (int i = 0; i < 3; i++) {", "int f() {"]
    invalid_code_samples = ["int x = ;"]
    code_generate_error = 'throw new IllegalStateException("planned failure");'
    code_execute_result = [{"code": "6 * 7", "result": "42"}, {"code": "\"glue\" + \"lab\"", "result": "gluelab"}]
    code_display_data = [
        {"code": 'display(Table.create("t"))', "mime": "text/html"},
        {"code": 'display(Charts.ranked(Ranking.of(List.of(new Candidate("rmsnorm", "fwd", "eager", 4096, 1, 50, 10, 1000)), 0.01)))',
         "mime": "image/png"},
    ]
    code_inspect_sample = "Math.max("
    code_history_pattern = "6*"
    supported_history_operations = ("tail", "range", "search")


if __name__ == "__main__":
    unittest.main()
