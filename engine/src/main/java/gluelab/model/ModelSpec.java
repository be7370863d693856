package gluelab.model;

import java.util.List;

/**
 * The dims of one transformer layer that the glue ops depend on, from a public config or a user's
 * JSON file. {@code regions} lists the locally compiled regions this config enables; a config that
 * {@code extends} another inherits them (workflow step 9: a region enabled in a parent reaches
 * every child).
 */
public record ModelSpec(
        String name,
        String parent,
        String source,
        int hidden,
        int heads,
        int kvHeads,
        int headDim,
        int ropeHeadDim,
        int ffn,
        int moeFfn,
        int experts,
        int topK,
        String routerScore,
        double normEps,
        double ropeTheta,
        int layers,
        List<String> regions) {

    public ModelSpec {
        regions = regions == null ? List.of() : List.copyOf(regions);
        require(name != null && !name.isBlank(), "a model spec needs a name");
        require(hidden > 0, name + ": hidden must be > 0, got " + hidden);
        require(heads > 0, name + ": heads must be > 0, got " + heads);
        require(kvHeads > 0 && heads % kvHeads == 0, name + ": kvHeads must be > 0 and divide heads (" + heads + "), got " + kvHeads);
        require(headDim > 0, name + ": headDim must be > 0, got " + headDim);
        require(ropeHeadDim > 0 && ropeHeadDim % 2 == 0, name + ": ropeHeadDim must be even and > 0, got " + ropeHeadDim);
        require(ffn > 0, name + ": ffn must be > 0, got " + ffn);
        require(experts >= 0 && topK >= 0 && topK <= Math.max(experts, 0), name + ": need 0 <= topK <= experts, got topK " + topK + ", experts " + experts);
        require(routerScore == null || routerScore.equals("softmax") || routerScore.equals("sigmoid"),
                name + ": routerScore must be softmax or sigmoid, got " + routerScore);
        require(moeFfn >= 0, name + ": moeFfn must be >= 0, got " + moeFfn);
        require(normEps > 0 && Double.isFinite(normEps), name + ": normEps must be a finite number > 0, got " + normEps);
        require(ropeTheta > 0 && Double.isFinite(ropeTheta), name + ": ropeTheta must be a finite number > 0, got " + ropeTheta);
        require(layers > 0, name + ": layers must be > 0, got " + layers);
    }

    private static void require(boolean ok, String message) {
        if (!ok) throw new IllegalArgumentException(message);
    }

    public boolean isMoe() { return experts > 0; }

    /** Width of the SwiGLU the layer runs: the expert FFN for MoE models, the dense FFN otherwise. */
    public int swigluWidth() { return isMoe() && moeFfn > 0 ? moeFfn : ffn; }

    public ModelSpec withRegions(List<String> newRegions) {
        return new ModelSpec(name, parent, source, hidden, heads, kvHeads, headDim, ropeHeadDim, ffn, moeFfn,
                experts, topK, routerScore, normEps, ropeTheta, layers, newRegions);
    }
}
