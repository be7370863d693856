package gluelab.files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

class AtomicFilesTest {
    /** A file the way the user's umask makes new files: written through the plain file API. */
    static Set<PosixFilePermission> umaskPermissions(Path dir) throws Exception {
        Path plain = Files.writeString(dir.resolve("plain.txt"), "x");
        return Files.getPosixFilePermissions(plain);
    }

    @Test
    void writesLandWithTheUsersUmaskNotOwnerOnly(@TempDir Path dir) throws Exception {
        Set<PosixFilePermission> expected = umaskPermissions(dir);
        Path target = dir.resolve("record.json");
        AtomicFiles.write(target, "{}");
        assertEquals(expected, Files.getPosixFilePermissions(target));
        AtomicFiles.write(target, "{\"again\": 1}");
        assertEquals("{\"again\": 1}", Files.readString(target));
        assertEquals(expected, Files.getPosixFilePermissions(target));
        try (var s = Files.list(dir)) {
            assertEquals(2, s.count(), "no temp files are left behind");
        }
    }
}
