package gluelab.cli;

import gluelab.files.Locations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static gluelab.cli.CliTest.assertBadInput;
import static gluelab.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.*;

/** What a hostile-input probe found the CLI accepting silently or answering unclearly (issue 23). */
class CliBadInputTest {
    /** One line of error, the nearest names where a name was unknown, and where help is: never the usage. */
    static void assertOneLine(CliTest.Result r, String... fragments) {
        assertBadInput(r, fragments);
        List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
        assertTrue(lines.size() <= 3, "more than an error, a suggestion and a hint: " + r.err());
        assertFalse(r.err().contains("Usage:"), r.err());
    }

    @Test
    void numbersWithTheOptionsOwnUnitAreReadAndOthersNameTheUnit() {
        assertEquals(0.5, new UnitNumbers.Percent().convert("0.5%"));
        assertEquals(2.0, new UnitNumbers.Percent().convert(" 2 % "));
        assertEquals(4800.0, new UnitNumbers.GbPerSecond().convert("4.8TB/s"));
        assertEquals(4272.0, new UnitNumbers.GbPerSecond().convert("4272GB/s"));
        assertEquals(4272.0, new UnitNumbers.GbPerSecond().convert("4272"));
        assertOneLine(run("bench", "rmsnorm", "--max-noise", "0.5ms"), "--max-noise", "'0.5ms' is not a percentage");
        assertOneLine(run("compare", "a", "b", "--bound", "2x"), "--bound", "'2x' is not a percentage");
        assertOneLine(run("floor", "rmsnorm", "--bandwidth", "4.8GHz"), "--bandwidth", "'4.8GHz' is not a bandwidth in GB/s");
        assertOneLine(run("floor", "rmsnorm", "--bandwidth", "1e-300"), "--bandwidth", "'1e-300' is out of range");
        assertOneLine(run("floor", "rmsnorm", "--bandwidth", "1e400"), "--bandwidth", "'1e400' is too large");
    }

    @Test
    void aUnitGivenWithTheNumberReachesTheWork() {
        CliTest.Result r = run("floor", "rmsnorm", "--tokens", "16", "--bandwidth", "4.8TB/s");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("4800"), r.out());
    }

    @Test
    void badOptionValuesGetOneLineAndNoUsage() {
        assertOneLine(run("bench", "rmsnorm", "--placements", "many"), "--placements", "'many'");
        assertOneLine(run("confirm", "--experiment", "x", "--processes", "99999999999999999999"), "--processes", "99999999999999999999");
        assertTrue(run("bench", "rmsnorm", "--placements", "many").err().strip().endsWith("try 'gluelab bench --help'"));
    }

    @Test
    void typosAreMatchedByEditDistanceAtEveryLevel() {
        assertOneLine(run("bnech"), "did you mean: bench");
        assertOneLine(run("torch", "verisons"), "did you mean: versions");
        assertOneLine(run("bench", "rmsnorm", "--max-nosie", "1"), "did you mean: --max-noise");
        assertEquals(1, Suggestions.distance("bnech", "bench"));
        assertEquals(List.of(), Suggestions.near("zzzzzz", List.of("bench", "tune")));
    }

    @Test
    void tokenCountsThatOverflowSaySo() {
        assertOneLine(run("bench", "rmsnorm", "--tokens", "18014398509481985k"), "'18014398509481985k' overflows");
        assertOneLine(run("bench", "rmsnorm", "--tokens", "9007199254740992k"), "'9007199254740992k' overflows");
        assertOneLine(run("bench", "rmsnorm", "--tokens", "99999999999999999999"), "'99999999999999999999' overflows");
    }

    @Test
    void anOpGivenTwiceIsRefused() {
        assertOneLine(run("bench", "rmsnorm", "rmsnorm"), "op 'rmsnorm' is given twice");
    }

    @Test
    void torchOptionsWithoutTorchAreRefused() {
        assertOneLine(run("bench", "rmsnorm", "--device", "cpu", "--tokens", "16", "--compile-mode", "max-autotune"), "--compile-mode 'max-autotune' needs --with torch");
        assertOneLine(run("bench", "rmsnorm", "--device", "cpu", "--tokens", "16", "--torch-variants", "torch-eager"), "--torch-variants 'torch-eager' needs --with torch");
    }

    @Test
    void outputPathsOfTheWrongKindAreRefusedBeforeWork(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertOneLine(run("demo", "--out", dir.resolve("o").toString(), "--devlog", dir.resolve("no/such/devlog.md").toString()), "--devlog", "does not exist");
        assertFalse(Files.exists(dir.resolve("o")));
        assertOneLine(run("tune", "rmsnorm", "--device", "cpu", "--charts", file.toString()), "--charts", "is a file, not a folder");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Locations.specFolders(file.toString()));
        assertTrue(e.getMessage().contains("GLUELAB_SPECS names " + file + ", a file"), e.getMessage());
        assertEquals(3, Locations.specFolders(dir.toString()).size());
    }

    @Test
    void confirmRefusesATimeoutUnderASecond(@TempDir Path dir) {
        assertOneLine(run("confirm", "--experiment", "x", "--experiments-root", dir.toString(), "--compare", "rmsnorm:16:eager:fused", "--timeout", "-1"), "--timeout must be at least 1 second, got -1");
    }

    @Test
    void aFailedPlanLeavesNoExperimentFolder(@TempDir Path dir) {
        assertOneLine(run("experiment", "mine", "--experiments-root", dir.toString(), "--model", "gpt-9", "--tokens", "2k"), "gpt-9");
        assertFalse(Files.exists(dir.resolve("mine")), "left behind: " + dir.resolve("mine"));
    }

    /** Looking up an experiment by a name no experiment can have said "no experiment '../escape'", as if it were only missing. */
    @Test
    void anExperimentNameThatCannotBeOneIsRefusedAsSuch(@TempDir Path dir) {
        for (String name : java.util.List.of("../escape", "a/b", "x y"))
            assertOneLine(run("experiment", name, "--experiments-root", dir.toString()), "experiment name '" + name + "' must be 1-100 letters");
    }

    /** A hand-edited plan.json's model file, function or device was refused naming the command line's --model-file, or no file at all. */
    @Test
    void aHandEditedPlanIsRefusedNamingPlanJsonAndItsFieldBeforeTorchStarts(@TempDir Path dir) throws Exception {
        Path model = Files.writeString(dir.resolve("blocks.py"), "def build():\n    pass\n");
        var ex = gluelab.workflow.experiment.ExperimentFolder.open("mine", dir);
        String plan = "{\"model\": \"llama-3-8b\", \"tokens\": [16], \"stopFraction\": 0.01, \"device\": \"DEVICE\", "
                + "\"subject\": {\"file\": \"FILE\", \"function\": \"FUNCTION\", \"inputs\": \"x:T,8:fp32\", \"blocks\": \"\", \"regions\": []}}";
        String gone = dir.resolve("gone.py").toString();
        java.util.Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put(plan.replace("DEVICE", "cpu").replace("FILE", gone).replace("FUNCTION", "build"),
                ": field \"subject.file\" ('" + gone + "'): no such file " + gone);
        cases.put(plan.replace("DEVICE", "cpu").replace("FILE", dir.resolve("blocks.txt").toString()).replace("FUNCTION", "build"),
                ": field \"subject.file\" must be the path of a .py file");
        cases.put(plan.replace("DEVICE", "cpu").replace("FILE", model.toString()).replace("FUNCTION", "bu ild"),
                ": field \"subject.function\" must be a Python function name, such as build, got \"bu ild\"");
        cases.put(plan.replace("DEVICE", "bogus").replace("FILE", model.toString()).replace("FUNCTION", "build"),
                ": field \"device\": unknown device 'bogus'");
        for (var c : cases.entrySet()) {
            Files.writeString(ex.planFile(), c.getKey());
            for (String step : List.of("baselines", "profile", "graphs", "check")) {
                CliTest.Result r = run("model", step, "mine", "--experiments-root", dir.toString(), "--python", "/no/python/here");
                assertOneLine(r, ex.planFile() + c.getValue());
                assertFalse(r.err().contains("--model-file '"), "the plan's field, not the command line's flag: " + r.err());
            }
        }
        assertOneLine(run("experiment", "other", "--experiments-root", dir.toString(), "--model-file", gone + ":build", "--inputs", "x:T,8:fp32", "--tokens", "16"),
                "--model-file '" + gone + ":build': no such file");
    }
}
