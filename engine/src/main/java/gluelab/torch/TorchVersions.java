package gluelab.torch;

/**
 * What the torch side runs on: goes into records and table headers next to gluelab's device. {@code threads}: torch's
 * intra-op threads ({@code torch.get_num_threads()}; 0 in a record saved before it was kept).
 */
public record TorchVersions(String python, String executable, String torch, String cuda, String triton, String gpu, String device,
                            boolean compile, String compileReason, int threads) {
    public String describe() {
        return "torch " + torch + (cuda.isEmpty() ? " (CPU build)" : ", CUDA " + cuda) + (triton.isEmpty() ? "" : ", Triton " + triton)
                + (gpu.isEmpty() ? "" : ", " + gpu) + (threads > 0 && gpu.isEmpty() ? ", " + threads + " CPU thread" + (threads == 1 ? "" : "s") : "") + ", Python " + python + " (" + executable + ")"
                + (compile ? "" : "; torch.compile rows skipped: " + compileReason);
    }
}
