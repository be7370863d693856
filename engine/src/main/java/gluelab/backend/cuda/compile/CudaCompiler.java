package gluelab.backend.cuda.compile;

import java.util.List;

/** Turns CUDA C source into a cubin for one architecture. */
public interface CudaCompiler {
    /** Name and version, part of the compile cache key: "nvrtc 13.0", "nvcc 13.0.88". */
    String id();

    byte[] compileCubin(SourceUnit source, String arch, List<String> options);

    /** The installed NVRTC (newest libnvrtc.so.N) when present, else nvcc, else a clear error. */
    static CudaCompiler find() {
        StringBuilder why = new StringBuilder();
        try {
            return NvrtcCompiler.load();
        } catch (RuntimeException | LinkageError e) {
            why.append("NVRTC: ").append(e.getMessage());
        }
        try {
            return NvccCompiler.find();
        } catch (RuntimeException e) {
            why.append("; nvcc: ").append(e.getMessage());
        }
        throw new IllegalStateException("no CUDA compiler found (" + why + "); install the CUDA toolkit or set CUDA_HOME");
    }
}
