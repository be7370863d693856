package gluelab.files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

class WrittenFilesTest {

    @Test
    void aTextEditedByHandIsKeptAndTheNewOneGoesBeside(@TempDir Path dir) throws Exception {
        WrittenFiles.in(dir).write("a.md", "one");
        Files.writeString(dir.resolve("a.md"), "one, edited");
        var w = WrittenFiles.in(dir).write("a.md", "two");
        assertTrue(w.beside());
        assertEquals("one, edited", Files.readString(dir.resolve("a.md")));
        assertEquals("two", Files.readString(dir.resolve("a.new.md")));
    }

    @Test
    void aTextNoLongerWrittenIsRemovedUnlessEditedByHand(@TempDir Path dir) throws Exception {
        var first = WrittenFiles.in(dir);
        first.write("keep.md", "k");
        first.write("stale.md", "s");
        first.write("edited.md", "e");
        Files.writeString(dir.resolve("edited.md"), "e, by hand");
        Files.writeString(dir.resolve("notes.md"), "the analyst's own file");

        var second = WrittenFiles.in(dir);
        second.write("keep.md", "k2");
        List<String> removed = second.removeOthers(Set.of("keep.md"));

        assertEquals(List.of("stale.md"), removed);
        assertFalse(Files.exists(dir.resolve("stale.md")));
        assertEquals("e, by hand", Files.readString(dir.resolve("edited.md")), "an edited text is never removed");
        assertEquals("the analyst's own file", Files.readString(dir.resolve("notes.md")), "a file gluelab did not write is not touched");
        assertEquals(List.of(), WrittenFiles.in(dir).removeOthers(Set.of("keep.md")), "the index forgets what was removed");
    }
}
