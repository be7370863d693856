package gluelab.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/** The launchers add the Vector API (and its start-up warning) only for the commands that time ops on a device. */
@Tag("slow")
class LauncherTest {
    static final String WARNING = "WARNING: Using incubator modules: jdk.incubator.vector";

    /** Runs the bundle's launcher over this JVM's runtime and class path; returns its stderr. */
    static String launch(Path dir, String... args) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("gluelab/bin"));
        Path runtimeBin = Files.createDirectories(dir.resolve("gluelab/runtime/bin"));
        Path app = Files.createDirectories(dir.resolve("gluelab/runtime/lib/app"));
        Path java = runtimeBin.resolve("java");
        Files.writeString(java, "#!/bin/sh\nexec '" + Path.of(System.getProperty("java.home"), "bin", "java") + "' \"$@\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        // the bundle's jar folder: one jar whose manifest names this test's class path
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(e -> Path.of(e).toUri().toString()).collect(Collectors.joining(" ")));
        try (var out = new JarOutputStream(Files.newOutputStream(app.resolve("classpath.jar")), m)) {
            out.finish();
        }
        Path launcher = bin.resolve("gluelab");
        Files.writeString(launcher, BundleCommand.launcherScript());
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder pb = new ProcessBuilder(launcher.toString());
        for (String a : args) pb.command().add(a);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), err);
        return err;
    }

    @Test
    void onlyDeviceCommandsStartWithTheVectorApi(@TempDir Path dir) throws Exception {
        assertFalse(launch(dir, "specs").contains("incubator"), "a command that times nothing starts without the incubator module");
        assertTrue(launch(dir, "bench", "--help").contains(WARNING), "bench gets the Vector API for the CPU's fused loops");
    }

    @Test
    void binGluelabHasTheSameCommandList() throws Exception {
        Path script = Path.of("..", "bin", "gluelab");
        String list = String.join("|", BundleCommand.VECTOR_COMMANDS) + ") vector=\"--add-modules jdk.incubator.vector\"";
        assertTrue(Files.readString(script).contains(list), "bin/gluelab and BundleCommand.VECTOR_COMMANDS list the same commands: " + list);
        var commands = Main.commandLine().getSubcommands().keySet();
        for (String c : BundleCommand.VECTOR_COMMANDS) {
            assertTrue(commands.contains(c) || c.equals("run"), c + " is a gluelab command (run comes with the kernel module)");
        }
    }
}
