package gluelab.workflow.model;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A guard failure dynamo gives as the reason of a recompile, as step 06's tables show it. Most read as they are
 * ("tensor 'x' size mismatch at index 0. expected 16, actual 32"); two do not: a type guard on an input that became
 * None ("expected type of 'mask' to be a tensor type, ' but found <class 'NoneType'>", its quote misplaced), and a
 * shape guard that raised on one ("'NoneType' object has no attribute 'size'", which names no input at all). Those
 * are said as what they are, dynamo's own words kept after them.
 */
final class GuardReason {
    private static final Pattern TYPE = Pattern.compile("expected type of '(.+?)' to be a tensor type, ' but found <class '(\\w+)'>");
    private static final Pattern RAISED = Pattern.compile("'NoneType' object has no attribute '(\\w+)'");

    private GuardReason() {}

    static String readable(String guard) {
        if (guard == null || guard.isBlank()) return "";
        Matcher type = TYPE.matcher(guard);
        if (type.find()) {
            String what = type.group(2).equals("NoneType") ? "was None" : "was a " + type.group(2);
            return "input '" + type.group(1) + "' " + what + " where its graph was compiled for a tensor (dynamo: " + guard + ")";
        }
        Matcher raised = RAISED.matcher(guard);
        if (raised.find())
            return "a guard on an input that was None: its graph was compiled for a tensor there, and dynamo's guard read its ." + raised.group(1)
                    + "() (dynamo: " + guard + ")";
        return guard;
    }
}
