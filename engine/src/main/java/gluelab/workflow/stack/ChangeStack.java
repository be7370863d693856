package gluelab.workflow.stack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The change stack (workflow steps 9 and 10): validated changes, biggest impact first, under one set
 * of measuring conditions, with the ideas that were rejected and what was not tested. Impact is the
 * share of the layer's time a change saves at its headline token count when every change knows its
 * layer share, else the time it saves summed over its comparisons. Saved as JSON atomically; a
 * broken file is refused naming the file and the field.
 */
public record ChangeStack(Conditions conditions, List<Change> changes, List<Rejected> rejected, List<String> notTested) {
    public static final int FORMAT = 1;

    public ChangeStack {
        if (conditions == null) throw new IllegalArgumentException("a change stack needs its conditions");
        changes = ordered(changes == null ? List.of() : changes);
        List<String> ids = changes.stream().map(Change::id).toList();
        for (String id : ids) if (ids.indexOf(id) != ids.lastIndexOf(id)) throw new IllegalArgumentException("change id '" + id + "' is in the stack twice");
        rejected = rejected == null ? List.of() : List.copyOf(rejected);
        notTested = notTested == null ? List.of() : List.copyOf(notTested);
    }

    public static ChangeStack empty(Conditions conditions) { return new ChangeStack(conditions, List.of(), List.of(), List.of()); }

    /** Biggest impact first; ties keep the given order. */
    static List<Change> ordered(List<Change> changes) {
        boolean shares = changes.stream().allMatch(c -> c.layerShare() != null);
        Comparator<Change> byImpact = shares ? Comparator.comparingDouble(Change::layerSaved) : Comparator.comparingDouble(Change::totalSavedUs);
        List<Change> out = new ArrayList<>(changes);
        out.sort(byImpact.reversed());
        return List.copyOf(out);
    }

    /** How the stack is ordered, for people: "share of the layer saved" or "time saved". */
    public String orderedBy() {
        return !changes.isEmpty() && changes.stream().allMatch(c -> c.layerShare() != null)
                ? "share of the layer saved at the headline token count" : "time saved, summed over token counts";
    }

    /** This stack with {@code change} added, or replacing the change with the same id. */
    public ChangeStack with(Change change) {
        List<Change> next = new ArrayList<>(changes);
        next.removeIf(c -> c.id().equals(change.id()));
        next.add(change);
        return new ChangeStack(conditions, next, rejected, notTested);
    }

    public ChangeStack withRejected(Rejected idea) {
        List<Rejected> next = new ArrayList<>(rejected);
        next.add(idea);
        return new ChangeStack(conditions, changes, next, notTested);
    }

    public ChangeStack withNotTested(String what) {
        List<String> next = new ArrayList<>(notTested);
        next.add(what);
        return new ChangeStack(conditions, changes, rejected, next);
    }

    public Change change(String id) {
        for (Change c : changes) if (c.id().equals(id)) return c;
        throw new IllegalArgumentException("no change '" + id + "' in the stack; it holds " + changes.stream().map(Change::id).toList());
    }

    /** 1-based position of a change, biggest impact first. */
    public int position(String id) { return changes.indexOf(change(id)) + 1; }

    /** Writes the stack to {@code file} atomically (a crash leaves the previous file whole). */
    public void save(Path file) {
        AtomicFiles.write(file, Json.write(new StackFile(FORMAT, this)));
    }

    /** The stack saved at {@code file}, or an empty one under {@code conditions} when there is none yet (a step run again resumes it). */
    public static ChangeStack loadOr(Path file, Conditions conditions) {
        return Files.exists(file) ? load(file) : empty(conditions);
    }

    /** The stack saved at {@code file}; a broken file fails naming the file and the field. */
    public static ChangeStack load(Path file) {
        String text = gluelab.files.TextInput.read(file, "change stack");
        StackFile f;
        try {
            f = Json.MAPPER.readValue(text, StackFile.class);
        } catch (JsonProcessingException e) {
            String field = e instanceof JsonMappingException m ? Json.fieldPath(m) : "";
            String where = e.getLocation() != null ? " (line " + e.getLocation().getLineNr() + ")" : "";
            throw new IllegalArgumentException("change stack " + file + (field.isEmpty() ? "" : ": field \"" + field + "\"") + where + ": " + Json.problem(e), e);
        }
        if (f == null || f.stack() == null) throw new IllegalArgumentException("change stack " + file + ": field \"stack\" is missing");
        if (f.format() != FORMAT) throw new IllegalArgumentException("change stack " + file + ": field \"format\" is " + f.format() + ", this gluelab reads " + FORMAT);
        return f.stack();
    }

    /** The file's shape: a format number, then the stack. */
    record StackFile(int format, ChangeStack stack) {}
}
