package gluelab.torch;

/** A torch row that was not measured, and why (torch.compile missing, CUDA graphs on a CPU, a failed capture). */
public record Skipped(String subject, String variant, String reason) {}
