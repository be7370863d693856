package gluelab.torch;

import gluelab.record.Row;

import java.util.List;

/** Torch rows (variants torch-eager, torch-compile, torch-compile-graph) with compile accounting and what was skipped. */
public record TorchResult(TorchVersions versions, List<Row> rows, List<CompileReport> compiles, List<Skipped> skipped) {
    public TorchResult {
        rows = List.copyOf(rows);
        compiles = List.copyOf(compiles);
        skipped = List.copyOf(skipped);
    }
}
