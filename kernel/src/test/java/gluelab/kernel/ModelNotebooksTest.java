package gluelab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.files.Json;
import gluelab.torch.PythonFinder;
import gluelab.torch.PythonSource;
import gluelab.torch.TorchException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The story's notebooks on the analyst's model, as `gluelab run ... -p modelFile=...` runs them: the
 * shipped Llama-3 example at tiny dims on the CPU with the real torch (GLUELAB_PYTHON), one experiment
 * planned by 00 and carried through 01, 03 and 04; a step not built for a model says so in one line.
 */
@Tag("slow")
class ModelNotebooksTest {
    static final Path NOTEBOOKS = Path.of("../notebooks").toAbsolutePath().normalize();
    static final Path LLAMA = NOTEBOOKS.resolveSibling("docs/examples/models/llama3.py");
    @TempDir static Path dir;
    static List<JsonNode> executed = new ArrayList<>();
    static KernelCommandsTest.Result run;

    @BeforeAll static void runTheStoryOnTheModel() throws Exception {
        String why = null;
        try {
            PythonFinder.standard().find(null, PythonSource.ARGUMENT);
        } catch (TorchException e) {
            why = e.getMessage();
        }
        assumeTrue(why == null, "no Python with torch (set GLUELAB_PYTHON): " + why);
        // Copies outside the checkout, so the experiment lands under dir/out/experiments, not the checkout's.
        List<String> args = new ArrayList<>(List.of("run"));
        for (String nb : List.of("00-plan", "01-baselines", "03-profile-diff", "04-rank", "05-fix")) {
            Files.copy(NOTEBOOKS.resolve(nb + ".ipynb"), dir.resolve(nb + ".ipynb"));
            if (!nb.startsWith("05")) args.add(dir.resolve(nb + ".ipynb").toString());
        }
        args.addAll(List.of("-p", "experiment=llama", "-p", "modelFile=" + LLAMA + ":build", "-p", "inputs=x:T,64:fp32", "-p", "tokens=16",
                "--out", dir.resolve("executed").toString()));
        run = KernelCommandsTest.gluelab(args.toArray(String[]::new));
        for (String nb : List.of("00-plan", "01-baselines", "03-profile-diff", "04-rank")) {
            Path f = dir.resolve("executed/" + nb + ".ipynb");
            if (Files.exists(f)) executed.add(Json.MAPPER.readTree(f.toFile()));
        }
    }

    /** Every output of a notebook as one text: streams, text/plain and text/html. */
    static String shown(JsonNode nb) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode c : nb.get("cells")) {
            for (JsonNode o : c.path("outputs")) {
                sb.append(o.path("text").asText()).append(o.path("data").path("text/plain").asText()).append(o.path("data").path("text/html").asText());
                if (o.path("output_type").asText().equals("error")) sb.append("ERROR OUTPUT: ").append(o);
            }
        }
        return sb.toString();
    }

    @Test void theFourNotebooksRunOnTheModelWithoutAnError() {
        assertEquals(0, run.code(), run.toString());
        assertEquals(4, executed.size());
        for (JsonNode nb : executed) assertFalse(shown(nb).contains("ERROR OUTPUT"), shown(nb));
        assertTrue(shown(executed.get(0)).contains("llama3.py"), "the plan names the model file: " + shown(executed.get(0)));
    }

    @Test void baselinesShowTheModelsTreesFwdBwd() {
        String s = shown(executed.get(1));
        assertTrue(s.contains("model llama3.py:build"), s);
        for (String tree : List.of("eager", "per-block", "whole")) assertTrue(s.contains(tree), tree + " row: " + s);
        assertTrue(s.contains("compile_s") && !s.contains("FAILED"), s);
    }

    @Test void profileAndRankingNameLinesOfTheModelFile() {
        String profile = shown(executed.get(2)), ranking = shown(executed.get(3));
        assertTrue(profile.contains("profiled at 16 tokens") && profile.contains("llama3.py:"), profile);
        assertTrue(ranking.contains("ranking per source line and op") && ranking.matches("(?s).*\\(llama3\\.py:\\d+\\).*"), ranking);
        assertFalse(ranking.contains("rmsnorm region"), "not the catalogue's story: " + ranking);
    }

    @Test void aStepNotBuiltForAModelSaysWhatToRunInsteadInOneLine() throws Exception {
        var r = KernelCommandsTest.gluelab("run", dir.resolve("05-fix.ipynb").toString(), "-p", "experiment=llama", "--out", dir.resolve("executed-05").toString());
        assertNotEquals(0, r.code(), r.toString());
        JsonNode nb = Json.MAPPER.readTree(dir.resolve("executed-05/05-fix.ipynb").toFile());
        JsonNode error = null;
        for (JsonNode c : nb.get("cells")) for (JsonNode o : c.path("outputs")) if (o.path("output_type").asText().equals("error")) error = o;
        assertNotNull(error, nb.toString());
        JsonNode lines = error.get("traceback");
        assertTrue(lines.get(0).asText().contains("`gluelab model fix llama` on the command line"), error.toString());
        for (int i = 1; i < lines.size(); i++) assertTrue(lines.get(i).asText().strip().startsWith("at <cell>"), "the cell's line, no stack trace of gluelab's: " + error);
    }
}
