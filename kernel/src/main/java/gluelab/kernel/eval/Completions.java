package gluelab.kernel.eval;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Orders JShell's completions so that what a receiver offers comes before what every object has. */
final class Completions {
    /** Names of {@code Object}'s public methods: noise after {@code lab.}, since every receiver has them. */
    static final Set<String> OBJECT_METHODS = Arrays.stream(Object.class.getMethods()).map(Method::getName).collect(Collectors.toUnmodifiableSet());

    private Completions() {}

    /**
     * The options with {@code Object}'s methods moved to the end, or left out when {@code nothingTyped}
     * (the cursor sits right after the dot), keeping JShell's order otherwise.
     */
    static List<String> objectMethodsLast(List<String> options, boolean nothingTyped) {
        List<String> own = new ArrayList<>(), object = new ArrayList<>();
        for (String o : options) (OBJECT_METHODS.contains(name(o)) ? object : own).add(o);
        if (own.isEmpty()) return options; // only Object's methods match what is typed: keep them
        if (!nothingTyped) own.addAll(object);
        return own;
    }

    /** "hashCode()" and "wait(" name hashCode and wait. */
    private static String name(String continuation) {
        int paren = continuation.indexOf('(');
        return paren < 0 ? continuation : continuation.substring(0, paren);
    }
}
