package gluelab.expr.catalogue;

import gluelab.expr.Glue;
import gluelab.ops.OpRegistry;
import gluelab.ops.ScaleFixture;

import java.util.Map;

/** The fixture op as a glue expression: y = s * x. */
public final class ScaleRegionFixture implements CatalogueRegions.Entries {
    @Override public void register(OpRegistry.Builder<CatalogueRegions.Expression> r) {
        r.add(ScaleFixture.ID, (op, s, pass) -> {
            Glue g = Glue.dims("T", s.tokens(), "D", s.dim("D"));
            return new CatalogueRegions.Expressed(g.region("scale").out("y", g.data("x", s.dtype(), "T", "D").mul(s.param("s")).cast(s.dtype())), Map.of());
        });
    }
}
