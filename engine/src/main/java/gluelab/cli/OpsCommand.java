package gluelab.cli;

import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import picocli.CommandLine.Command;

import java.util.Arrays;
import java.util.concurrent.Callable;

@Command(name = "ops", mixinStandardHelpOptions = true, description = "List the op catalogue.")
public final class OpsCommand implements Callable<Integer> {
    @Override public Integer call() {
        for (GlueOp op : Catalogue.all()) {
            String passes = String.join(",", Arrays.stream(Pass.values()).filter(op::supports).map(Pass::id).toList());
            System.out.printf("%-20s %-8s %s%n", op.name(), passes, op.summary());
        }
        return 0;
    }
}
