package gluelab.workflow.confirm;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import gluelab.progress.Progress;
import gluelab.timing.QuietCheck;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The main of each confirmation process: {@code JOB.json OUT.json}. Opens its own device (a new
 * context on a GPU), reads the device before and after, times the job and writes its output
 * atomically; prints {@value #MEASURING} when timing starts. Not a user command.
 */
public final class ConfirmWorker {
    static final String MEASURING = "measuring";

    private ConfirmWorker() {}

    public static void main(String[] args) {
        int code = 0;
        try {
            if (args.length != 2) throw new IllegalArgumentException("usage: ConfirmWorker JOB.json OUT.json");
            run(Path.of(args[0]), Path.of(args[1]));
        } catch (IllegalArgumentException e) {
            System.err.println("gluelab confirm worker: error: " + e.getMessage());
            code = 2;
        } catch (RuntimeException | Error e) {
            System.err.println("gluelab confirm worker: error: " + e);
            e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    static void run(Path jobFile, Path out) {
        ConfirmJob job;
        try {
            job = Json.MAPPER.readValue(jobFile.toFile(), ConfirmJob.class);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read confirmation job " + jobFile + ": " + e.getMessage(), e);
        }
        try (Device device = Devices.open(job.device())) {
            Map<String, String> before = QuietCheck.deviceReadings(device);
            System.out.println(MEASURING);
            System.out.flush();
            List<Timed> timed = TrainStepTiming.run(device, job, Progress.NONE);
            Map<String, String> after = QuietCheck.deviceReadings(device);
            AtomicFiles.write(out, Json.write(new WorkerOutput(ProcessHandle.current().pid(), before, after, timed)));
        }
    }
}
