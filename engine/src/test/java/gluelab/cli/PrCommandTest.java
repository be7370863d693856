package gluelab.cli;

import gluelab.workflow.stack.StackSamples;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static gluelab.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.*;

/** Steps 09-11 from the command line: pr write / check / rules, feedback, specs --reach. */
@Tag("slow")
class PrCommandTest {
    @Test
    void writeThenCheckAndAHandEditedTextFailsWithFileLineAndRule(@TempDir Path dir) throws Exception {
        Path stack = dir.resolve("stack.json");
        StackSamples.stack().save(stack);
        CliTest.Result w = run("pr", "write", stack.toString());
        assertEquals(0, w.code(), w.toString());
        Path pr = dir.resolve("pr/q-norm-rope.md");
        assertTrue(Files.exists(pr) && Files.exists(dir.resolve("pr/router-glue.md")), w.toString());

        CliTest.Result ok = run("pr", "check", pr.toString(), dir.resolve("pr/router-glue.md").toString());
        assertEquals(0, ok.code(), ok.toString());
        assertTrue(ok.err().contains("2 text(s) follow every rule"), ok.err());

        List<String> lines = new ArrayList<>(Files.readAllLines(pr));
        int at = lines.indexOf("## Problem");
        lines.add(at, "We found that the q path was slower.");
        Path edited = dir.resolve("pr/edited.md");
        Files.write(edited, lines);
        CliTest.Result bad = run("pr", "check", pr.toString(), edited.toString());
        assertEquals(1, bad.code(), bad.toString());
        assertTrue(bad.out().contains(edited + ":" + (at + 1) + ": [no-paragraphs] a paragraph line"), bad.out());
        assertTrue(bad.out().contains(edited + ":" + (at + 1) + ": [direction]"), bad.out());
        assertTrue(bad.err().contains("in 1 of 2 text(s)"), bad.err());
    }

    /** Outputs that pointed at inputs overwrote them without a word (issue 23's probe). */
    @Test
    void aHandEditedTextIsKeptAndTheNewOneWrittenBesideIt(@TempDir Path dir) throws Exception {
        Path stack = dir.resolve("stack.json");
        StackSamples.stack().save(stack);
        assertEquals(0, run("pr", "write", stack.toString()).code());
        Path pr = dir.resolve("pr/q-norm-rope.md");
        String first = Files.readString(pr);
        // Written again untouched: replaced in place, nothing beside it.
        CliTest.Result again = run("pr", "write", stack.toString());
        assertEquals(0, again.code(), again.toString());
        assertFalse(Files.exists(dir.resolve("pr/q-norm-rope.new.md")), again.toString());
        Files.writeString(pr, first + "\nReviewer asked for the 2k row too.\n");
        CliTest.Result w = run("pr", "write", stack.toString());
        assertEquals(0, w.code(), w.toString());
        assertTrue(Files.readString(pr).contains("Reviewer asked"), "the hand-edited text was overwritten");
        assertEquals(first, Files.readString(dir.resolve("pr/q-norm-rope.new.md")));
        assertTrue(w.err().contains("note: " + pr + " was edited since it was written and is kept; the new text is q-norm-rope.new.md"), w.err());
    }

    @Test
    void feedbackRefusesToWriteOverItsOwnInputs(@TempDir Path dir) throws Exception {
        Path stack = dir.resolve("stack.json"), log = dir.resolve("devlog.md");
        StackSamples.stack().save(stack);
        new gluelab.devlog.Devlog(log).deadEnd("a dead end");
        String stackBefore = Files.readString(stack), logBefore = Files.readString(log);
        CliTest.assertBadInput(run("feedback", "--devlog", log.toString(), "--stack", stack.toString(), "--out", log.toString()), "--out " + log + " is the input " + log);
        CliTest.assertBadInput(run("feedback", "--devlog", log.toString(), "--stack", stack.toString(), "--out", dir.resolve("./stack.json").toString()), "is the input " + stack);
        assertEquals(stackBefore, Files.readString(stack));
        assertEquals(logBefore, Files.readString(log));
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        CliTest.assertBadInput(run("pr", "write", stack.toString(), "--out", file.resolve("pr").toString()), "--out", "is a file, so no folder can be made under it");
    }

    /** Binary input said "Input length = 1" (issue 23's probe). */
    @Test
    void binaryInputsSayWhereTheyStopBeingText(@TempDir Path dir) throws Exception {
        Path log = Files.write(dir.resolve("devlog.md"), new byte[]{'#', ' ', 'x', '\n', (byte) 0xc3, '('});
        CliTest.assertBadInput(run("feedback", "--devlog", log.toString()), "devlog " + log + ":2: not UTF-8 text at byte 4");
        Path pr = Files.write(dir.resolve("x.md"), new byte[]{'a', (byte) 0xff});
        CliTest.assertBadInput(run("pr", "check", pr.toString()), "PR text " + pr + ":1: not UTF-8 text at byte 1");
        Path plan = Files.write(dir.resolve("plan.json"), new byte[]{'{', (byte) 0xfe, '}'});
        CliTest.assertBadInput(run("sweep", "shards", plan.toString()), "sweep plan " + plan + ":1: not UTF-8 text at byte 1");
    }

    @Test
    void badInputIsNamedBeforeAnyWork(@TempDir Path dir) throws Exception {
        CliTest.assertBadInput(run("pr", "check", dir.resolve("missing.md").toString()), "no such PR text", "missing.md");
        Path stack = dir.resolve("stack.json");
        Files.writeString(stack, "{\"format\": 1, \"stack\": {\"conditions\": {\"device\": \"H200\"}}}");
        CliTest.assertBadInput(run("pr", "write", stack.toString()), "change stack " + stack, "stack.conditions", "conditions need the model");
        CliTest.assertBadInput(run("feedback"), "give --devlog FILE, --stack FILE or both");
    }

    @Test
    void rulesAreListedAndFeedbackIsWritten(@TempDir Path dir) throws Exception {
        CliTest.Result rules = run("pr", "rules");
        assertEquals(0, rules.code());
        assertTrue(rules.out().contains("conditions-above") && rules.out().contains("stack-summary"), rules.out());

        Path stack = dir.resolve("stack.json"), log = dir.resolve("devlog.md"), out = dir.resolve("feedback.md");
        StackSamples.stack().save(stack);
        new gluelab.devlog.Devlog(log).deadEnd("a global cat-lowering option: 24% slower for another RoPE");
        CliTest.Result fb = run("feedback", "--devlog", log.toString(), "--stack", stack.toString(), "--out", out.toString());
        assertEquals(0, fb.code(), fb.toString());
        String md = Files.readString(out);
        assertTrue(md.contains("- [ ] a global cat-lowering option: 24% slower for another RoPE"), md);
        assertTrue(md.contains("region router_glue needs 7 of 8 graphs"), md);
    }

    /** specs reads $GLUELAB_SPECS, so this runs the real launcher's main in a process of its own with the variable set. */
    @Test
    void specsReachListsEverySpecThatExtendsTheOneEnablingTheRegion(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("ours.json"), "{\"name\": \"dsv3-ours\", \"extends\": \"deepseek-v3\", \"regions\": [\"q_norm_rope\"]}");
        Files.writeString(dir.resolve("kimi.json"), "{\"name\": \"kimi-k2\", \"extends\": \"dsv3-ours\", \"experts\": 384}");
        Files.writeString(dir.resolve("small.json"), "{\"name\": \"kimi-small\", \"extends\": \"kimi-k2\", \"layers\": 4}");
        Files.writeString(dir.resolve("other.json"), "{\"name\": \"llama-ours\", \"extends\": \"llama-3-8b\", \"regions\": [\"cat\"]}");
        String out = specs(dir, "--reach", "q_norm_rope");
        assertTrue(out.matches("(?s)spec\\s+enabled in\\s+extends\\n"
                + "dsv3-ours\\s+dsv3-ours\\s+deepseek-v3\\n"
                + "kimi-k2\\s+dsv3-ours\\s+dsv3-ours\\n"
                + "kimi-small\\s+dsv3-ours\\s+kimi-k2\\n"), out);
        String in = specs(dir, "--reach", "q_norm_rope", "--in", "kimi-k2");
        assertFalse(in.contains("dsv3-ours  ") && in.startsWith("dsv3-ours"), in);
        assertTrue(in.contains("kimi-small") && !in.lines().anyMatch(l -> l.startsWith("dsv3-ours")), in);
        String none = specs(dir, "--reach", "nowhere");
        assertTrue(none.contains("no model spec enables region 'nowhere'; regions enabled: cat, q_norm_rope"), none);
    }

    static String specs(Path specDir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "gluelab.cli.Main", "specs"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(specDir.toFile());
        pb.environment().put("GLUELAB_SPECS", specDir.toString());
        pb.environment().put("HOME", specDir.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        return out.lines().filter(l -> !l.startsWith("WARNING")).reduce("", (a, b) -> a + b + "\n");
    }
}
