package gluelab.torch;

import gluelab.record.Row;

import java.util.List;

/**
 * Torch rows (variants torch-eager, torch-compile, torch-compile-graph) with compile accounting, what
 * was skipped, and the compile-first step of a bench ({@link Precompile#NONE} when there was none).
 */
public record TorchResult(TorchVersions versions, List<Row> rows, List<CompileReport> compiles, List<Skipped> skipped, Precompile precompile) {
    public TorchResult {
        rows = List.copyOf(rows);
        compiles = List.copyOf(compiles);
        skipped = List.copyOf(skipped);
    }

    public TorchResult(TorchVersions versions, List<Row> rows, List<CompileReport> compiles, List<Skipped> skipped) {
        this(versions, rows, compiles, skipped, Precompile.NONE);
    }
}
