package gluelab.workflow.model;

import gluelab.check.ErrorStats;
import gluelab.tensor.DType;
import gluelab.torch.ModelCorrectness;
import gluelab.workflow.correctness.CheckRow;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Step 08's verdicts from the statistics the harness sends: a reference that did not fit passes nothing; sizes and repeats are judged. */
class ModelCheckRowsTest {
    static ErrorStats stats(String t, String against, double rel, double maxAbs) { return new ErrorStats(t, against, 4, rel, 1, maxAbs, 0); }

    static final ModelCorrectness.Repeat SAME = new ModelCorrectness.Repeat("out0", stats("out0", "first step", 0, 0));

    static ModelCorrectness of(String referenceError, ModelCorrectness.FixTensor t, ModelCorrectness.Repeat repeat) {
        return of(referenceError, t, repeat, SAME);
    }

    static ModelCorrectness of(String referenceError, ModelCorrectness.FixTensor t, ModelCorrectness.Repeat repeat, ModelCorrectness.Repeat eagerRepeat) {
        ErrorStats eagerVsFp64 = referenceError.isEmpty() ? stats("out0", "fp64", 1e-3, 1e-3) : null;
        return new ModelCorrectness("m.py:build", List.of(new ModelCorrectness.AtDtype(DType.BF16, "", referenceError,
                List.of(new ModelCorrectness.Tensor("out0", 4, eagerVsFp64)), List.of(eagerRepeat),
                List.of(new ModelCorrectness.FixRun("rope", "", List.of(), List.of(), List.of(t), List.of(repeat))))));
    }

    @Test void aFixAsCloseToFp64AsTwiceEagerPassesAndItsRepeatToo() {
        List<CheckRow> rows = ModelCheckStep.rows("m", of("", new ModelCorrectness.FixTensor("out0", 4, stats("out0", "fp64", 1.5e-3, 1e-3),
                stats("out0", "eager", 1e-4, 1e-4)), SAME));
        assertEquals(2, rows.size());
        assertTrue(rows.get(0).ok(), rows.get(0).toString());
        assertTrue(rows.get(1).ok(), "the repeat: " + rows.get(1));
    }

    @Test void withoutAnFp64ReferenceNothingPassesAndTheReasonIsKept() {
        List<CheckRow> rows = ModelCheckStep.rows("m", of("the fp64 copy's weights and gradients need 180.0 GiB, the device has 120.0 GiB free",
                new ModelCorrectness.FixTensor("out0", 4, null, stats("out0", "eager", 0, 0)), SAME));
        CheckRow r = rows.get(0);
        assertFalse(r.ok());
        assertNotNull(r.vsEager(), "still compared with eager");
        assertTrue(r.note().contains("need 180.0 GiB"), r.note());
    }

    @Test void aMissingGradientASizeChangeAndAChangedRepeatFail() {
        assertFalse(ModelCheckStep.rows("m", of("", new ModelCorrectness.FixTensor("out0", -1, null, null), SAME)).get(0).ok());
        CheckRow resized = ModelCheckStep.rows("m", of("", new ModelCorrectness.FixTensor("out0", 8, null, null), SAME)).get(0);
        assertFalse(resized.ok());
        assertTrue(resized.note().contains("8 values in the fix, 4"), resized.note());
        List<CheckRow> rows = ModelCheckStep.rows("m", of("", new ModelCorrectness.FixTensor("out0", 4, stats("out0", "fp64", 1e-3, 1e-3),
                stats("out0", "eager", 0, 0)), new ModelCorrectness.Repeat("out0", stats("out0", "first step", 1e-6, 1e-6))));
        assertFalse(rows.get(1).ok(), rows.get(1).toString());
        assertFalse(ModelCheckStep.rows("m", of("", new ModelCorrectness.FixTensor("out0", 4, stats("out0", "fp64", 1e-3, 1e-3),
                stats("out0", "eager", 0, 0)), new ModelCorrectness.Repeat("out0", null))).get(1).ok());
    }

    @Test void aRepeatThatChangesNoMoreThanEagersOwnPassesAndOneThatChangesMoreFails() {
        var fix = new ModelCorrectness.FixTensor("out0", 4, stats("out0", "fp64", 1e-3, 1e-3), stats("out0", "eager", 0, 0));
        var eagerMoves = new ModelCorrectness.Repeat("out0", stats("out0", "first step", 1.4e-6, 1e-6));
        CheckRow within = ModelCheckStep.rows("m", of("", fix, new ModelCorrectness.Repeat("out0", stats("out0", "first step", 1.5e-6, 1e-6)), eagerMoves)).get(1);
        assertTrue(within.ok(), within.toString());
        assertTrue(within.note().contains("eager's own 1.40e-06"), within.note());
        CheckRow over = ModelCheckStep.rows("m", of("", fix, new ModelCorrectness.Repeat("out0", stats("out0", "first step", 3e-6, 1e-6)), eagerMoves)).get(1);
        assertFalse(over.ok(), over.toString());
        CheckRow eagerSteady = ModelCheckStep.rows("m", of("", fix, new ModelCorrectness.Repeat("out0", stats("out0", "first step", 1e-9, 1e-9)))).get(1);
        assertFalse(eagerSteady.ok(), "eager's own step is bit for bit: any change is the fix's");
    }
}
