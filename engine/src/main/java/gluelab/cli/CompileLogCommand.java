package gluelab.cli;

import gluelab.compilelog.BudgetText;
import gluelab.compilelog.CompileLogParser;
import gluelab.compilelog.GraphBudget;
import gluelab.files.Json;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "compile-log", mixinStandardHelpOptions = true,
        description = "Read dynamo's log (stderr of a run with TORCH_LOGS=recompiles,graph_breaks,guards) into a graph budget: graphs per "
                + "compiled code object against the recompile limit, recompile reasons by guarded expression, symptoms and fixes. Needs no torch.")
public final class CompileLogCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "the captured log") Path file;

    @Option(names = "--json", description = "print the budget as JSON") boolean json;

    @Option(names = "--markdown", description = "print the budget as markdown") boolean markdown;

    @Override public Integer call() {
        GraphBudget budget = GraphBudget.of(CompileLogParser.read(file));
        System.out.print(json ? Json.write(budget) + "\n" : markdown ? BudgetText.markdown(budget) : BudgetText.text(budget));
        return 0;
    }
}
