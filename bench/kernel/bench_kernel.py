"""Kernel benchmarks, side by side with ipykernel (see docs/benchmarks.md).

usage: JUPYTER_PATH=... python3 bench_kernel.py [cells]
       JUPYTER_PATH=... python3 bench_kernel.py --latency [cells]   (ready and round trip only)
       JUPYTER_PATH=... /usr/bin/python3 bench_kernel.py --rss [cells]   (resident memory only)

Ready: start until the kernel_info reply (median of 3 starts). Round trip: median over [cells]
trivial cells (`1`) after 50 warm-up cells, with its 10th and 90th percentiles, and the kernel process's CPU time a cell over them
(all its threads; less swayed than wall time by other work on the machine); then the same for `1 + 1`, a cell gluelab
compiles with JShell (`1` is a literal, which gluelab answers without javac: kernel/.../eval/CertainCells.java); the
load average is printed before and after. BENCH_KERNELS=a,b,... names the kernelspecs (default gluelab,python3; e.g. a
second gluelab kernelspec on another build, to compare builds in one run). Heap (gluelab only): the live bytes after a full GC
(the JVM's class histogram), read every 250 cells of a notebook-like mix (expressions, statements,
lambdas and streams, a table display, a compile error, a runtime error), up to [cells] cells after
100 warm-up cells and a 30 s pause (JShell indexes the platform's classes for completion in the
background after start; the pause keeps that one-off growth out of the per-cell figure).
"""
import os
import statistics
import sys
import time

import jupyter_client

# Live bytes after a full GC, from the JVM's class histogram (what `jmap -histo:live` prints).
JAVA_HEAP = ("Long.parseLong(((String) java.lang.management.ManagementFactory.getPlatformMBeanServer().invoke("
             "new javax.management.ObjectName(\"com.sun.management:type=DiagnosticCommand\"), \"gcClassHistogram\", "
             "new Object[]{null}, new String[]{String[].class.getName()})).lines().filter(l -> l.startsWith(\"Total\"))"
             ".map(l -> l.trim().split(\"\\\\s+\")[2]).findFirst().get())")
JAVA_SETUP = "int x = 0;"
JAVA_MIX = [
    "1",
    "x++;",
    "x + 1",
    "IntStream.range(0, 100).map(i -> i * x).sum()",
    "display(Table.create(\"t\", IntColumn.create(\"a\", new int[]{x, x + 1})));",
    "List.of(1, 2, 3).stream().map(v -> \"v\" + v).collect(Collectors.joining(\",\"))",
    "x.nope()",
    "Integer.parseInt(\"z\")",
]


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


def round_trip_ms(name, cells, code="1"):
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name=name, startup_timeout=120)
    try:
        for _ in range(50):
            run(kc, code)
        times = []
        cpu = cpu_seconds(km)
        for _ in range(cells):
            t = time.perf_counter()
            run(kc, code)
            times.append(time.perf_counter() - t)
        cpu = cpu_seconds(km) - cpu
        times.sort()
        return tuple(1000 * t for t in (statistics.median(times), times[len(times) // 10], times[len(times) * 9 // 10], cpu / cells))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def cpu_seconds(km):
    """CPU time the kernel process has used (user + system, all its threads: JIT and GC included), s."""
    with open(f"/proc/{km.provisioner.process.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def heap_profile(name, cells, every=250):
    """(cells run, heap MB) pairs; the first after the warm-up."""
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name=name, startup_timeout=120)
    try:
        run(kc, JAVA_SETUP)
        for i in range(100):
            run(kc, JAVA_MIX[i % len(JAVA_MIX)])
        time.sleep(30)
        points = [(0, int(value(kc, JAVA_HEAP)) / 1e6)]
        for i in range(1, cells + 1):
            run(kc, JAVA_MIX[i % len(JAVA_MIX)])
            if i % every == 0:
                points.append((i, int(value(kc, JAVA_HEAP)) / 1e6))
        return points
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def rss_mb(km):
    """The kernel process's resident set (VmRSS), MB."""
    pid = km.provisioner.process.pid
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def rss_profile(name, cells, every=500, mix=None):
    """(cells run, RSS MB) pairs from the kernel's start, over the notebook-like mix (or `1` for ipykernel)."""
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name=name, startup_timeout=120)
    try:
        points = [(0, rss_mb(km))]
        if mix:
            run(kc, JAVA_SETUP)
        for i in range(1, cells + 1):
            run(kc, mix[i % len(mix)] if mix else "1")
            if i % every == 0:
                points.append((i, rss_mb(km)))
        return points
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--rss":
        cells = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
        t = time.time()
        points = rss_profile("gluelab", cells, mix=JAVA_MIX)
        print(f"gluelab RSS (cells: MB) over {cells} cells of the mix in {time.time() - t:.0f} s: "
              + ", ".join(f"{c}: {mb:.0f}" for c, mb in points))
        points = rss_profile("python3", cells)
        print("ipykernel RSS (cells: MB): " + ", ".join(f"{c}: {mb:.0f}" for c, mb in points))
        sys.exit(0)
    latency_only = len(sys.argv) > 1 and sys.argv[1] == "--latency"
    args = sys.argv[2:] if latency_only else sys.argv[1:]
    cells = int(args[0]) if args else 1000
    load = lambda: " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min) before: {load()}", flush=True)
    for name in os.environ.get("BENCH_KERNELS", "gluelab,python3").split(","):
        ready = ready_seconds(name)
        median, p10, p90, cpu = round_trip_ms(name, cells)
        print(f"{name}: ready (kernel_info reply after start) median {ready:.2f} s; "
              f"trivial cell round trip median {median:.1f} ms (p10 {p10:.1f}, p90 {p90:.1f}) over {cells} cells; "
              f"kernel CPU {cpu:.1f} ms a cell; load {load()}", flush=True)
        median, p10, p90, cpu = round_trip_ms(name, cells, "1 + 1")
        print(f"{name}: `1 + 1` round trip median {median:.1f} ms (p10 {p10:.1f}, p90 {p90:.1f}) over {cells} cells; "
              f"kernel CPU {cpu:.1f} ms a cell; load {load()}", flush=True)
    if latency_only:
        sys.exit(0)
    points = heap_profile("gluelab", cells)
    print("gluelab heap after GC (cells after warm-up: MB): " + ", ".join(f"{c}: {mb:.1f}" for c, mb in points))
