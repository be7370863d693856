package gluelab.ops;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.util.StdConverter;

import java.io.IOException;

/**
 * Something deliberately not measured or not implemented, and why: "moe_routing fwd region: top-k
 * is not an expression". The one skip shape: registries declare them for ops they have no entry
 * for, a bench shows them as rows of its "not measured" table, a tuning's config, a confirmed row,
 * a fix attempt and a device's dtype capability carry one where they were not measured.
 */
public record Skip(String subject, String reason) {
    public Skip {
        if (subject == null || subject.isBlank()) throw new IllegalArgumentException("a skip names what was skipped");
        if (reason == null || reason.isBlank()) throw new IllegalArgumentException("skip of " + subject + " needs a reason");
    }

    /** The same reason for another subject (a row that names its own subject, read back from its reason alone). */
    public Skip about(String otherSubject) { return otherSubject.equals(subject) ? this : new Skip(otherSubject, reason); }

    @Override public String toString() { return subject + ": " + reason; }

    /**
     * A skip written as its reason alone, for a row whose JSON has always held the reason as a string
     * and whose subject is the row itself; the row sets the subject back with {@link #about}.
     */
    public static final class AsReason extends StdConverter<Skip, String> {
        @Override public String convert(Skip s) { return s.reason(); }
    }

    /** A reason read back: blank (a row written before as measured) is no skip. */
    public static final class FromReason extends StdConverter<String, Skip> {
        /** The placeholder subject until the row names itself. */
        public static final String UNNAMED = "a row read back";

        @Override public Skip convert(String reason) { return reason == null || reason.isBlank() ? null : new Skip(UNNAMED, reason); }
    }

    /** No skip written as "", for rows that have always written "" when measured. */
    public static final class NoneAsEmpty extends JsonSerializer<Object> {
        @Override public void serialize(Object none, JsonGenerator g, SerializerProvider p) throws IOException { g.writeString(""); }
    }
}
