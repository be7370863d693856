package gluelab.torch;

/** What the torch side runs on: goes into records and table headers next to gluelab's device. */
public record TorchVersions(String python, String executable, String torch, String cuda, String triton, String gpu, String device,
                            boolean compile, String compileReason) {
    public String describe() {
        return "torch " + torch + (cuda.isEmpty() ? " (CPU build)" : ", CUDA " + cuda) + (triton.isEmpty() ? "" : ", Triton " + triton)
                + (gpu.isEmpty() ? "" : ", " + gpu) + ", Python " + python + " (" + executable + ")"
                + (compile ? "" : "; torch.compile rows skipped: " + compileReason);
    }
}
