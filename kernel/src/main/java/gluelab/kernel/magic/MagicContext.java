package gluelab.kernel.magic;

import gluelab.backend.cuda.UserKernel;
import gluelab.devlog.Devlog;
import gluelab.lab.Gluelab;

import java.nio.file.Path;

/** What magics act on: the session's lab and devlog, and the JShell session the cells run in (the cell runner). */
public interface MagicContext {
    Gluelab lab();

    /** Opens the lab on {@code selector} (closing the one before) and rebinds {@code lab} in the JShell session. */
    Gluelab switchDevice(String selector);

    /** The lab a magic's {@code --device} option names: the session's for auto, else a switch to it (which rebinds {@code lab}). */
    default Gluelab labFor(String selector) { return selector == null || selector.equals("auto") ? lab() : switchDevice(selector); }

    /** (Re)defines {@code var lab} in the JShell session as the session's lab. */
    void bindLab() throws Exception;

    Devlog devlog();

    void devlog(Path file);

    /** Runs a cell's text (code and magics) as a cell. */
    Object run(String cell) throws Exception;

    void addToClasspath(String path);

    /** Keeps a %%cuda kernel in the session and defines {@code var NAME} for it in JShell. */
    void defineCudaKernel(String name, UserKernel kernel) throws Exception;
}
