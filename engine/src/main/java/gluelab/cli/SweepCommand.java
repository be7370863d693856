package gluelab.cli;

import gluelab.files.Locations;
import gluelab.lab.RunReport;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
import gluelab.sweep.*;
import gluelab.sweep.slurm.SlurmCommands;
import gluelab.sweep.slurm.SlurmOptions;
import gluelab.sweep.slurm.SlurmSweep;
import gluelab.sweep.slurm.Submission;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "sweep", mixinStandardHelpOptions = true,
        description = "Sweeps beyond one GPU: a plan split into shards, run by one worker per GPU here or as Slurm job arrays, merged into one experiment. See docs/scale-out.md.",
        subcommands = {SweepCommand.Shards.class, SweepCommand.Run.class, SweepCommand.Submit.class, SweepCommand.Status.class,
                SweepCommand.Wait.class, SweepCommand.Collect.class, SweepCommand.Resubmit.class})
public final class SweepCommand implements Runnable {
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override public void run() { spec.commandLine().usage(System.out); }

    static SweepPlan plan(Path file) { return PlanFile.read(file, SpecRegistry.load(Locations.specFolders())); }

    /** Merges what finished into DIR/merged; the shards left out are named with their state. Exit 1 when any was left out. */
    static int collect(SweepDir dir, java.util.function.Function<SweepDir, List<ShardStatus>> statuses, boolean allowMixed) {
        // Two collects of one sweep at once replaced each other's merged folder half-way.
        Path lockFile = dir.root().resolve(COLLECT_LOCK);
        try (var lock = gluelab.files.FileLock.tryTake(lockFile)) {
            if (lock == null) throw new IllegalStateException("another 'sweep collect' of " + dir.root() + " is running (it holds " + lockFile
                    + "); wait for it to finish, then collect again");
            Merge.Result result = Merge.of(List.of(dir.root()), allowMixed, statuses);
            return MergeCommand.print(result, MergeOutput.publish(result, dir.merged(), RunReport.RENDERER));
        }
    }

    static final String COLLECT_LOCK = ".collect.lock";

    @Command(name = "shards", mixinStandardHelpOptions = true, description = "List the shards a plan splits into (runs nothing).")
    static final class Shards implements Callable<Integer> {
        @Parameters(paramLabel = "PLAN", description = "sweep plan (JSON)") Path planFile;

        @Override public Integer call() {
            List<Shard> shards = plan(planFile).shards();
            for (Shard s : shards) System.out.println(s.index() + "\t" + s.name());
            System.out.println(shards.size() + " shards");
            return 0;
        }
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Run a sweep on this host, one worker process per device, then merge. Exit 1 when a shard failed (named).")
    static final class Run implements Callable<Integer> {
        @Parameters(paramLabel = "PLAN", arity = "0..1", description = "sweep plan (JSON); leave out with --resume") Path planFile;

        @Option(names = "--devices", defaultValue = "all", description = "all (every GPU) | 0,1 | cuda:0,cuda:1 | cpu | cpu,cpu (default: ${DEFAULT-VALUE})")
        String devices;

        @Option(names = "--out", description = "the sweep folder to create (default: out/<sweep id>)") Path out;

        @Option(names = "--resume", description = "run the shards of this sweep folder that are not done") Path resume;

        @Option(names = "--allow-mixed", description = "merge even when devices' calibrations differ (see 'gluelab merge')") boolean allowMixed;

        @Override public Integer call() {
            List<String> devs = DeviceList.parse(devices);
            PathOptions.folder(out, "--out");
            SweepDir dir = open(planFile, resume, out);
            System.out.println("sweep " + dir.id() + " in " + dir.root() + ": " + dir.shards().size() + " shards on " + devs);
            var statuses = new LocalSweep(dir, devs, WorkerCommand.current(), new ConsoleProgress(System.err)).run();
            System.out.println(StatusTable.counts(statuses));
            return collect(dir, SweepDir::fileStatuses, allowMixed);
        }
    }

    static SweepDir open(Path planFile, Path resume, Path out) {
        if (resume != null) {
            if (planFile != null) throw new IllegalArgumentException("give a PLAN or --resume DIR, not both");
            return SweepDir.open(resume);
        }
        if (planFile == null) throw new IllegalArgumentException("give a sweep PLAN file (or --resume DIR)");
        SweepPlan plan = plan(planFile);
        Path root = out != null ? out : Path.of("out", "sweep-" + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(java.time.ZoneOffset.UTC).format(java.time.Instant.now()));
        return SweepDir.create(root, plan);
    }

    @Command(name = "submit", mixinStandardHelpOptions = true,
            description = "Write an sbatch script for a job array (one shard per task, throttled) and submit it with sbatch. Prints the sweep folder: the ID for status, wait and collect.")
    static final class Submit implements Callable<Integer> {
        @Parameters(paramLabel = "PLAN", description = "sweep plan (JSON)") Path planFile;

        @Option(names = "--slurm", required = true, description = "submit to Slurm (the scheduler gluelab uses)") boolean slurm;

        @Option(names = "--out", description = "the sweep folder, on a file system the nodes share (default: out/<sweep id>)") Path out;

        @Option(names = "--partition", description = "Slurm partition (default: the cluster's)") String partition;

        @Option(names = "--gpus-per-task", defaultValue = "1", description = "GPUs per array task; 0 for CPU nodes (default: ${DEFAULT-VALUE})") int gpusPerTask;

        @Option(names = "--cpus-per-task", defaultValue = "4", description = "(default: ${DEFAULT-VALUE})") int cpusPerTask;

        @Option(names = "--time", defaultValue = "30:00", description = "time limit per task (default: ${DEFAULT-VALUE})") String time;

        @Option(names = "--throttle", defaultValue = "16", description = "array tasks running at once, the array's %%N (default: ${DEFAULT-VALUE})") int throttle;

        @Option(names = "--device", description = "device each task opens (default: cuda:0 with GPUs, else cpu)") String device;

        @Option(names = "--sbatch-arg", description = "a further sbatch option, repeatable (e.g. --sbatch-arg=--account=perf)") List<String> extra;

        @Override public Integer call() {
            String dev = device != null ? device : gpusPerTask > 0 ? "cuda:0" : "cpu";
            SlurmOptions options = new SlurmOptions(partition, gpusPerTask, cpusPerTask, time, throttle, dev, extra);
            SweepDir dir = open(planFile, null, out);
            List<Submission> subs = new SlurmSweep(dir, SlurmCommands.fromEnvironment()).submit(options, WorkerCommand.current());
            for (Submission s : subs) System.out.println("submitted job array " + s.jobId() + " (" + s.shards().size() + " tasks, script " + s.script() + ")");
            System.out.println("sweep: " + dir.root());
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Each shard's state, from its folder and squeue/sacct.")
    static final class Status implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "the sweep folder") Path dir;

        @Override public Integer call() {
            var st = statuses(SweepDir.open(dir));
            System.out.println(StatusTable.table(st).printAll());
            System.out.println(StatusTable.counts(st));
            return 0;
        }
    }

    /** Slurm's view where the sweep was submitted there, else the folders'. */
    static List<ShardStatus> statuses(SweepDir dir) {
        SlurmSweep s = new SlurmSweep(dir, SlurmCommands.fromEnvironment());
        return s.submissions().isEmpty() ? dir.fileStatuses() : s.status();
    }

    @Command(name = "wait", mixinStandardHelpOptions = true, description = "Wait until no shard is pending or running (progress on stderr). Exit 1 on timeout.")
    static final class Wait implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "the sweep folder") Path dir;

        @Option(names = "--timeout", defaultValue = "86400", description = "seconds at most (default: ${DEFAULT-VALUE})") long timeout;

        @Option(names = "--poll", defaultValue = "10", description = "seconds between looks (default: ${DEFAULT-VALUE})") double poll;

        @Override public Integer call() {
            if (poll <= 0) throw new IllegalArgumentException("--poll must be > 0");
            var st = new SlurmSweep(SweepDir.open(dir), SlurmCommands.fromEnvironment())
                    .await(Duration.ofSeconds(timeout), Duration.ofMillis((long) (poll * 1000)), new ConsoleProgress(System.err));
            System.out.println(StatusTable.counts(st));
            for (ShardStatus s : StatusTable.problems(st)) System.out.println(s.state() + ": " + s.name() + " (" + s.detail() + ")");
            return st.stream().anyMatch(s -> s.state() == ShardState.PENDING || s.state() == ShardState.RUNNING) ? 1 : 0;
        }
    }

    @Command(name = "collect", mixinStandardHelpOptions = true,
            description = "Merge the finished shards into DIR/merged/<model>/; names shards that failed, were cancelled or are missing (exit 1 when any).")
    static final class Collect implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "the sweep folder") Path dir;

        @Option(names = "--allow-mixed", description = "merge even when shards differ in device, code or calibration") boolean allowMixed;

        @Override public Integer call() {
            return collect(SweepDir.open(dir), SweepCommand::statuses, allowMixed);
        }
    }

    @Command(name = "resubmit", mixinStandardHelpOptions = true,
            description = "Submit again the shards that failed, were cancelled or got lost (or the named ones), with the last submission's options.")
    static final class Resubmit implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "the sweep folder") Path dir;

        @Option(names = "--shard", split = ",", description = "shard names or indices to resubmit (default: every failed, cancelled or lost one)") List<String> shards;

        @Override public Integer call() {
            SweepDir d = SweepDir.open(dir);
            List<Shard> chosen = new ArrayList<>();
            if (shards != null) {
                for (String s : shards) {
                    chosen.add(d.shards().stream().filter(x -> x.name().equals(s.trim()) || Integer.toString(x.index()).equals(s.trim())).findFirst()
                            .orElseThrow(() -> new IllegalArgumentException("--shard " + s + ": no such shard in " + dir + " (see 'gluelab sweep status')")));
                }
            }
            for (Submission s : new SlurmSweep(d, SlurmCommands.fromEnvironment()).resubmit(chosen, WorkerCommand.current())) {
                System.out.println("submitted job array " + s.jobId() + " for " + s.shards().size() + " shard(s): "
                        + String.join(", ", s.shards().stream().map(i -> d.plan().shard(i).name()).toList()));
            }
            return 0;
        }
    }
}
