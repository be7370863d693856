package gluelab.sweep.slurm;

import java.util.List;

/**
 * How a sweep's job array is submitted: partition (null: the cluster's default), GPUs and CPUs per
 * task, time limit per task ({@code sbatch --time}), how many tasks run at once (the array's {@code %N}),
 * the device each task opens, and any further sbatch options as given.
 */
public record SlurmOptions(String partition, int gpusPerTask, int cpusPerTask, String time, int throttle, String device,
                           List<String> extraSbatchArgs) {
    public SlurmOptions {
        extraSbatchArgs = extraSbatchArgs == null ? List.of() : List.copyOf(extraSbatchArgs);
        if (gpusPerTask < 0) throw new IllegalArgumentException("--gpus-per-task must be >= 0, got " + gpusPerTask);
        if (cpusPerTask < 1) throw new IllegalArgumentException("--cpus-per-task must be >= 1, got " + cpusPerTask);
        if (throttle < 1) throw new IllegalArgumentException("--throttle must be >= 1, got " + throttle);
        if (time != null && !time.matches("(\\d+-)?\\d+(:\\d{1,2}){0,2}")) {
            throw new IllegalArgumentException("--time '" + time + "' is not a Slurm time (minutes, MM:SS, HH:MM:SS or D-HH[:MM[:SS]])");
        }
        if (partition != null && !partition.matches("[A-Za-z0-9_.,-]+")) throw new IllegalArgumentException("--partition '" + partition + "' is not a partition name");
        if (device == null || device.isBlank()) throw new IllegalArgumentException("--device is empty");
    }

    /** One GPU per task, 4 CPUs, 30 minutes, at most 16 tasks at once, on the task's GPU. */
    public static SlurmOptions gpuDefaults() { return new SlurmOptions(null, 1, 4, "30:00", 16, "cuda:0", List.of()); }
}
