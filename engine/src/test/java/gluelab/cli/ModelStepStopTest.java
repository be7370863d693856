package gluelab.cli;

import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.KeptSoFar;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The line a model step stopped by a signal prints (ModelStepStoppedTest sends the signals): what it kept, and what the next run does. */
class ModelStepStopTest {
    @Test void theLineSaysWhatWasKeptWhetherTheEarlierRecordStandsAndWhatTheNextRunDoes() {
        assertEquals("STOPPED by SIGINT: step 01-baselines: 2 of 4 rows kept in steps/01-baselines/model-baselines.partial.json; "
                        + "the step is not marked done; run the step again to continue",
                ModelStepStop.line("SIGINT", Step.BASELINES, new KeptSoFar("2 of 4 rows kept in steps/01-baselines/model-baselines.partial.json", true), false));
        assertEquals("STOPPED by SIGTERM: step 06-graph-budget: nothing of this run: the step writes its record when it finishes; "
                + "the earlier finished record is unchanged; run the step again to start it over", ModelStepStop.line("SIGTERM", Step.GRAPH_BUDGET, KeptSoFar.NOTHING, true));
        assertEquals("STOPPED by SIGINT: step 08-correctness: nothing of this run: the step writes its record when it finishes; "
                + "the step is not marked done; run the step again to start it over", ModelStepStop.line("SIGINT", Step.CORRECTNESS, KeptSoFar.NOTHING, false));
    }
}
