package gluelab.sweep.slurm;

import java.util.List;

/** One job array submitted for a sweep: its Slurm job id, the shard index each array task runs, and how it was submitted. */
public record Submission(String jobId, List<Integer> shards, String script, SlurmOptions options, String submittedAt) {
    public Submission {
        shards = List.copyOf(shards);
    }

    /** The Slurm name of the task that runs shard {@code index} ({@code 12_3}), or null when this array has no such shard. */
    public String taskOf(int index) {
        int k = shards.indexOf(index);
        return k < 0 ? null : jobId + "_" + k;
    }
}
