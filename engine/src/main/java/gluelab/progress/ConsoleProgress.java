package gluelab.progress;

import java.io.PrintStream;

/** A one-line progress bar on a terminal; plain lines when the output is not a terminal. */
public final class ConsoleProgress implements Progress {
    private final PrintStream out;
    private final boolean terminal;
    private final long start = System.nanoTime();
    private String lastLine = "";

    public ConsoleProgress(PrintStream out) {
        this.out = out;
        this.terminal = System.console() != null;
    }

    @Override public synchronized void update(String task, long done, long total, String detail) {
        double f = total <= 0 ? 1 : Math.min(1, (double) done / total);
        int width = 30, filled = (int) Math.round(f * width);
        double elapsed = (System.nanoTime() - start) * 1e-9;
        String eta = done > 0 && done < total ? String.format(" eta %.0fs", elapsed / done * (total - done)) : "";
        String line = String.format("%s [%s%s] %d/%d %s%s", task, "#".repeat(filled), ".".repeat(width - filled), done, total, detail, eta);
        if (terminal) {
            out.print("\r" + line + " ".repeat(Math.max(0, lastLine.length() - line.length())));
            if (done >= total) out.println();
        } else if (!line.equals(lastLine)) {
            out.println(line);
        }
        out.flush();
        lastLine = line;
    }
}
