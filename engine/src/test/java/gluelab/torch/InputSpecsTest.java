package gluelab.torch;

import gluelab.model.Presets;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The hint a refused shape's error ends with: what each symbol of --inputs resolved to, and from where. */
class InputSpecsTest {
    @Test void aHintNamesEachInputsSymbolsTheirValuesAndWhereTheyCameFrom() {
        assertEquals("--inputs resolved: x: (T, D) = (2048, 4096); w: (D, 64) = (4096, 64) with T=2048 (the token count), "
                        + "D=4096 (the hidden size of --model llama-3-8b)",
                InputSpecs.hint("x:T,D:bf16; w:D,64:fp32", Presets.LLAMA_3_8B, 2048));
        assertEquals("--inputs resolved: q: (B, T, H, HD) = (1, 16, 32, 128) with B=1 (the batch, always 1), T=16 (the token count), "
                + "H=32 (the attention heads of --model llama-3-8b), HD=128 (the head dim of --model llama-3-8b)", InputSpecs.hint("q:B,T,H,HD:bf16", Presets.LLAMA_3_8B, 16));
    }

    @Test void inputsOfNumbersOnlyNeedNoHint() {
        assertEquals("", InputSpecs.hint("x:16,8:fp32", Presets.LLAMA_3_8B, 16));
    }

    @Test void aNameGivenTwiceIsRefusedBeforeTorchStarts() {
        var e = assertThrows(IllegalArgumentException.class, () -> InputSpecs.parse("x:T,32:fp32; x:T,32:fp32", java.util.Map.of("T", 16L)));
        assertEquals("input 'x:T,32:fp32': the name 'x' is given twice", e.getMessage());
    }
}
