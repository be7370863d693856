package gluelab.torch;

/**
 * How the analyst's model runs in a baseline row: as written, each repeated block compiled on its
 * own, the whole stack compiled, or the plan's regions (functions of the model file) each compiled
 * on its own with fullgraph=True.
 */
public enum ModelTree {
    EAGER("eager"), PER_BLOCK("per-block"), WHOLE("whole"), REGIONS("regions");

    private final String id;

    ModelTree(String id) { this.id = id; }

    /** The harness's and the tables' name of the tree. */
    public String id() { return id; }

    public boolean compiled() { return this != EAGER; }

    public static ModelTree parse(String text) {
        for (ModelTree t : values()) if (t.id.equals(text.strip())) return t;
        throw new IllegalArgumentException("unknown tree '" + text + "'; known: eager, per-block, whole, regions");
    }

    @Override public String toString() { return id; }
}
