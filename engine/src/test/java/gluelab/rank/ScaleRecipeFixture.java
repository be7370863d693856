package gluelab.rank;

import gluelab.ops.OpRegistry;
import gluelab.ops.ScaleFixture;

/** The fixture op runs in no model's layer: a declared skip, not a count. */
public final class ScaleRecipeFixture implements LayerRecipe.Entries {
    @Override public void register(OpRegistry.Builder<LayerRecipe.Count> r) {
        r.skip(ScaleFixture.ID, "a test fixture runs in no model's layer");
    }
}
