package gluelab.cli;

import java.util.Comparator;
import java.util.List;

/**
 * What a mistyped name was likely meant to be: the known names within a small edit distance,
 * nearest first. Picocli's own suggestions match by shared letter pairs, so a swap of two letters
 * ({@code bnech}) found {@code tune} and {@code torch} but not {@code bench}.
 */
final class Suggestions {
    private Suggestions() {}

    static List<String> near(String typed, List<String> known) {
        int limit = Math.max(2, typed.length() / 3);
        return known.stream().distinct()
                .filter(k -> distance(typed, k) <= limit)
                .sorted(Comparator.comparingInt((String k) -> distance(typed, k)).thenComparing(k -> k))
                .limit(3).toList();
    }

    /** Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours, each 1. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
