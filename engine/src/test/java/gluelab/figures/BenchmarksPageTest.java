package gluelab.figures;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class BenchmarksPageTest {
    static final Path DATA = Path.of("../docs/benchmarks");
    static final Path PAGE = Path.of("../docs/benchmarks.md");

    @Test
    void theCommittedPageIsWhatTheDataMakes() throws IOException {
        assertEquals(BenchmarksPage.render(DATA), Files.readString(PAGE),
                "docs/benchmarks.md is not generated from docs/benchmarks/: run bin/gluelab docs benchmarks");
    }

    @Test
    void thePageStaysShort() throws IOException {
        assertTrue(Files.readString(PAGE).lines().count() <= 400, "docs/benchmarks.md over 400 lines");
    }

    @Test
    void everyQuestionHasItsFileAndKeyColumns() {
        for (FigureQuestion q : BenchmarksPage.questions(DATA)) {
            FigureFile f = FigureFile.read(DATA.resolve(q.file()));
            assertFalse(f.rows().isEmpty(), q.file() + " has no figures");
            q.key().forEach(f::column);
        }
    }

    @Test
    void theNewestRowOfAKeyIsTheCurrentOne(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("index.json"), """
                [{"file": "x.csv", "title": "X", "about": "", "key": ["op"]}]""");
        Files.writeString(dir.resolve("x.csv"), """
                op,us,device,date,commit,command,state
                rmsnorm,10.0,gpu,2026-11-30,aaa,bench old,quiet
                swiglu,30.0,gpu,2026-11-30,aaa,bench old,quiet
                rmsnorm,9.0,gpu,2026-12-01,bbb,bench new,noisy
                rmsnorm,12.0,cpu,2026-11-29,ccc,bench cpu,quiet
                """);
        String page = BenchmarksPage.render(dir);
        assertTrue(page.contains("| rmsnorm | 9.0 | 1 |"), page);
        assertFalse(page.contains("| 10.0 |"), page);
        assertTrue(page.contains("| swiglu | 30.0 | 2 |"), page);
        assertTrue(page.contains("| rmsnorm | 12.0 | 3 |"), page);
        assertTrue(page.contains("1. gpu, 2026-12-01, commit `bbb`; noisy.\n   `bench new`"), page);
    }

    @Test
    void badDataIsNamedByFileLineAndField(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("x.csv");
        Files.writeString(f, "op,us,device,date,commit,command,state\nrmsnorm,10,gpu,1 Dec,aaa,bench,quiet\n");
        assertEquals(f + ":2: field date is '1 Dec', not YYYY-MM-DD",
                assertThrows(IllegalArgumentException.class, () -> FigureFile.read(f)).getMessage());
        Files.writeString(f, "op,us,device,date,commit,command,state\nrmsnorm,,gpu,2026-12-01,aaa,bench,quiet\n");
        assertEquals(f + ":2: field us is empty (write - for no figure)",
                assertThrows(IllegalArgumentException.class, () -> FigureFile.read(f)).getMessage());
        Files.writeString(f, "op,us,device,date\nrmsnorm,10,gpu,2026-12-01\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FigureFile.read(f)).getMessage()
                .startsWith(f + ":1: the header must end with device,date,commit,command,state"));
        Files.writeString(dir.resolve("index.json"), "[{\"file\": \"x.csv\", \"title\": \"X\", \"key\": [\"opp\"]}]");
        Files.writeString(f, "op,us,device,date,commit,command,state\nrmsnorm,10,gpu,2026-12-01,aaa,bench,quiet\n");
        assertEquals(f + ":1: no column opp (key of its question in index.json)",
                assertThrows(IllegalArgumentException.class, () -> BenchmarksPage.render(dir)).getMessage());
    }
}
