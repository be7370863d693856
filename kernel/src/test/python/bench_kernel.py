"""Kernel benchmarks, side by side with ipykernel (see docs/benchmarks.md).

usage: JUPYTER_PATH=... /usr/bin/python3 bench_kernel.py [cells]
"""
import statistics
import sys
import time

import jupyter_client


def ready_seconds(name, runs=3):
    out = []
    for _ in range(runs):
        t = time.time()
        km, kc = jupyter_client.manager.start_new_kernel(kernel_name=name, startup_timeout=120)
        out.append(time.time() - t)
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return statistics.median(out)


def run(kc, code):
    kc.execute_interactive(code, timeout=120, output_hook=lambda m: None)


def value(kc, code):
    got = []
    kc.execute_interactive(code, timeout=120, output_hook=lambda m: got.append(m))
    for m in got:
        if m["msg_type"] == "execute_result":
            return m["content"]["data"]["text/plain"]
    return None


def round_trips(name, cells, heap_code=None):
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name=name, startup_timeout=120)
    try:
        for _ in range(50):
            run(kc, "1")
        times, heap = [], []
        for i in range(cells):
            t = time.perf_counter()
            run(kc, "1")
            times.append(time.perf_counter() - t)
            if heap_code and i in (99, cells - 1):
                heap.append(int(value(kc, heap_code)))
        return statistics.median(times) * 1000, heap
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    cells = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    java_heap = "System.gc(); System.gc(); Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()"
    for name, heap in (("gluelab", java_heap), ("python3", None)):
        r = ready_seconds(name)
        rt, h = round_trips(name, cells, heap)
        print(f"{name}: ready (kernel_info reply after start) median {r:.2f} s; trivial cell round trip median {rt:.1f} ms over {cells} cells", end="")
        if h:
            print(f"; heap after GC at cell 100: {h[0] / 1e6:.1f} MB, at cell {cells}: {h[1] / 1e6:.1f} MB", end="")
        print()
