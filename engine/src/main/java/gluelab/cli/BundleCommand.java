package gluelab.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.*;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.*;
import java.util.concurrent.Callable;
import java.util.spi.ToolProvider;

@Command(name = "bundle", mixinStandardHelpOptions = true,
        description = "Make a self-contained gluelab for GPU hosts: a jlink runtime with only the needed modules, the jars (JCuda natives inside), and a launcher, as a folder and a .tar.gz.")
public final class BundleCommand implements Callable<Integer> {
    /**
     * The commands that time ops on a device, the only ones the launchers start with the Vector API
     * (the CPU's fused row loops): resolving an incubator module prints a warning on every JVM start,
     * which JDK 25 cannot turn off. {@code run} is the kernel module's notebook runner. bin/gluelab
     * holds the same list.
     */
    static final List<String> VECTOR_COMMANDS = List.of("demo", "bench", "calibrate", "tune", "sweep", "torch", "run");

    /** Modules no jar names statically but gluelab uses: JShell for the notebook kernel, management for test runners. */
    static final List<String> EXTRA_MODULES = List.of("jdk.jshell", "jdk.unsupported", "java.management", "jdk.zipfs", "jdk.crypto.ec", "jdk.incubator.vector");

    /** docs/development.md: the tarball (xz) stays at or under 60 MB, so a GPU host's carry limit takes it with room to spare. */
    static final long MAX_TARBALL_BYTES = 60_000_000L;

    @Option(names = "--out", defaultValue = "out/bundle", description = "output folder (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--no-tar", description = "write the folder only")
    boolean noTar;

    @Override public Integer call() throws Exception {
        List<Path> jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).filter(p -> p.toString().endsWith(".jar") && Files.isRegularFile(p)).toList();
        if (jars.isEmpty()) throw new IllegalStateException("no jars on the class path to bundle; run through bin/gluelab");
        ToolProvider jdeps = tool("jdeps"), jlink = tool("jlink");
        Set<String> modules = new TreeSet<>(EXTRA_MODULES);
        List<String> args = new ArrayList<>(List.of("--ignore-missing-deps", "--print-module-deps", "--multi-release", "25"));
        jars.forEach(j -> args.add(j.toString()));
        // The module list is the last line; jdeps may print warnings before it.
        String printed = run(jdeps, args).strip();
        modules.addAll(Arrays.asList(printed.substring(printed.lastIndexOf('\n') + 1).split(",")));
        modules.removeIf(String::isBlank);

        Path root = out.resolve("gluelab");
        if (Files.exists(root)) deleteTree(root);
        Path runtime = root.resolve("runtime");
        // The jimage is left uncompressed: the tarball's xz packs raw classes far tighter than it can
        // repack zip-9 (the folder grows, the tarball shrinks).
        List<String> jlinkArgs = new ArrayList<>(List.of("--add-modules", String.join(",", modules), "--no-header-files",
                "--no-man-pages", "--compress=zip-0", "--output", runtime.toString()));
        // Strips Java and native debug symbols (libjvm.so shrinks by two thirds); plain --strip-debug without objcopy.
        jlinkArgs.add(onPath("objcopy") ? "--strip-native-debug-symbols=exclude-debuginfo-files" : "--strip-debug");
        if (onPath("objcopy")) jlinkArgs.add("--strip-java-debug-attributes");
        run(jlink, jlinkArgs);
        // javac's symbol table for --release; JShell does not need it.
        Files.deleteIfExists(runtime.resolve("lib/ct.sym"));
        System.out.println(FallbackFont.install(runtime));
        Path app = Files.createDirectories(runtime.resolve("lib/app"));
        List<Path> others = jars.stream().filter(j -> !isAny(j, "fastutil-", "icu4j-")).toList();
        for (Path j : jars) {
            Path target = app.resolve(j.getFileName());
            String name = j.getFileName().toString();
            if (name.startsWith("fastutil-")) {
                System.out.println("fastutil: kept " + JarSlimmer.slim(j, "it/unimi/dsi/fastutil/", others, target) + " reachable classes");
            } else if (name.startsWith("icu4j-")) {
                System.out.println("icu4j: kept " + JarSlimmer.slim(j, "com/ibm/icu/", others, target) + " reachable classes");
            } else if (name.startsWith("jcuda-natives-")) {
                // Only the driver API binding is used (NVRTC is bound through FFM); the PTX compiler binding is 24 MB.
                JarSlimmer.filter(j, e -> !e.startsWith("lib/") || e.contains("JCudaDriver"), target);
            } else {
                JarSlimmer.store(j, target);
            }
        }
        Path bin = Files.createDirectories(root.resolve("bin"));
        Path launcher = bin.resolve("gluelab");
        Files.writeString(launcher, launcherScript());
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        System.out.println("modules: " + String.join(",", modules));
        System.out.printf("folder: %s (%.1f MB)%n", root, size(root) / 1e6);
        if (!noTar) {
            // xz packs the runtime a third smaller than gzip; gzip where xz is missing.
            boolean xz = onPath("xz");
            Path tar = out.resolve("gluelab-linux-x86_64.tar." + (xz ? "xz" : "gz"));
            Process p = new ProcessBuilder("tar", xz ? "-cJf" : "-czf", tar.toString(), "-C", out.toString(), "gluelab").inheritIO().start();
            if (p.waitFor() != 0) throw new IllegalStateException("tar failed with exit code " + p.exitValue());
            System.out.printf("tarball: %s (%.1f MB)%n", tar, Files.size(tar) / 1e6);
            if (xz && Files.size(tar) > MAX_TARBALL_BYTES) {
                throw new IllegalStateException(String.format("the bundle tarball is %.1f MB, over the %.0f MB docs/development.md allows: %s",
                        Files.size(tar) / 1e6, MAX_TARBALL_BYTES / 1e6, tar));
            }
        }
        return 0;
    }

    private static boolean isAny(Path p, String... prefixes) {
        for (String x : prefixes) if (p.getFileName().toString().startsWith(x)) return true;
        return false;
    }

    private static boolean onPath(String exe) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, exe))) return true;
        }
        return false;
    }

    private static ToolProvider tool(String name) {
        return ToolProvider.findFirst(name).orElseThrow(() -> new IllegalStateException(
                name + " is not available: run 'gluelab bundle' with a full JDK 25 (not from a bundle)"));
    }

    private static String run(ToolProvider tool, List<String> args) {
        StringWriter o = new StringWriter(), e = new StringWriter();
        int rc = tool.run(new PrintWriter(o), new PrintWriter(e), args.toArray(String[]::new));
        if (rc != 0) throw new IllegalStateException(tool.name() + " failed (" + rc + "): " + e + o);
        return o.toString();
    }

    private static long size(Path root) throws IOException {
        try (var s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (var s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    /** The bundle's bin/gluelab: its own runtime, the Vector API only for {@link #VECTOR_COMMANDS}. */
    static String launcherScript() {
        return """
                #!/bin/sh
                # gluelab from a bundle: its own Java runtime, no build, no JDK needed.
                here="$(cd "$(dirname "$0")/.." && pwd)"
                # the Vector API only for the commands that time ops on a device (a JVM resolving it warns at start)
                vector=""
                for a in "$@"; do
                  case "$a" in
                    -*) continue ;;
                    %s) vector="--add-modules jdk.incubator.vector" ;;
                  esac
                  break
                done
                exec "$here/runtime/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow $vector -Djava.awt.headless=true \\
                  -Dslf4j.internal.verbosity=ERROR --add-opens jdk.jshell/jdk.jshell=ALL-UNNAMED \\
                  --add-opens jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED --add-opens jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED \\
                  $GLUELAB_JAVA_OPTS -cp "$here/runtime/lib/app/*" gluelab.cli.Main "$@"
                """.formatted(String.join("|", VECTOR_COMMANDS));
    }
}
