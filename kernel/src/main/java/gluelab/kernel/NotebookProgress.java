package gluelab.kernel;

import gluelab.progress.Progress;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Long engine work as a progress bar in the notebook: displayed once, then updated in place
 * (update_display_data), at most ten times a second.
 */
final class NotebookProgress implements Progress {
    private final Consumer<DisplayData> show;
    private final BiConsumer<String, DisplayData> update;
    private String id;
    private String task;
    private long last;

    NotebookProgress(Consumer<DisplayData> show, BiConsumer<String, DisplayData> update) {
        this.show = show;
        this.update = update;
    }

    @Override public synchronized void update(String task, long done, long total, String detail) {
        long now = System.nanoTime();
        boolean finished = done >= total;
        if (!task.equals(this.task)) {
            this.task = task;
            id = "gluelab-progress-" + Long.toHexString(now);
            DisplayData d = data(task, done, total, detail);
            d.setDisplayId(id);
            show.accept(d);
            last = now;
            return;
        }
        if (!finished && now - last < 100_000_000L) return;
        last = now;
        update.accept(id, data(task, done, total, detail));
    }

    static DisplayData data(String task, long done, long total, String detail) {
        DisplayData d = new DisplayData(String.format("%s %d/%d %s", task, done, total, detail));
        d.putHTML(String.format("<div><b>%s</b> <progress value='%d' max='%d' style='width:300px'></progress> %d/%d %s</div>",
                task, done, Math.max(1, total), done, total, detail.replace("<", "&lt;")));
        return d;
    }
}
