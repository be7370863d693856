package gluelab.cli;

import gluelab.lab.RunReport;
import gluelab.record.ExperimentRecord;
import gluelab.record.RecordStore;
import gluelab.report.Tables;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "report", mixinStandardHelpOptions = true, description = "Re-render a saved run (findings.md and charts) from its record, running nothing.")
public final class ReportCommand implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", description = "a run folder (holding record.json)") Path dir;

    @Option(names = "--to", description = "write the rendering here instead of into DIR") Path to;

    @Override public Integer call() {
        ExperimentRecord r = RecordStore.load(dir);
        Path target = to != null ? to : dir;
        RunReport report = new RunReport(r);
        Path findings = report.render(target);
        System.out.println(Tables.baselines(r.rows()).printAll());
        System.out.println(report.ranking().table().printAll());
        System.out.println("findings: " + findings);
        return 0;
    }
}
