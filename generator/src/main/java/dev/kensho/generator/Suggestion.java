package dev.kensho.generator;

import java.util.Collection;
import java.util.Locale;

/**
 * "Did you mean …?" for a misspelt name: the known name fewest edits away (Damerau-Levenshtein, so that two swapped
 * letters are one edit), when it is close enough to be a typo. Paths are compared whole; of names equally near, one in
 * the same folder as the written one wins ("queue/indexs.md" → "queue/indexes.md", not "guide/indexes.md").
 */
public final class Suggestion {

    private Suggestion() {
    }

    /** " (did you mean 'customCss'?)", or "" when no known name is close. */
    public static String didYouMean(String written, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String folder = folderOf(written);
        for (String candidate : known) {
            int distance = distance(written.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
            if (distance < bestDistance || distance == bestDistance && !folderOf(best).equals(folder) && folderOf(candidate).equals(folder)) {
                best = candidate;
                bestDistance = distance;
            }
        }
        if (best == null) {
            return "";
        }
        // A third of the longer name may be wrong (at least two edits: "logos" → "logo", "titel" → "title"), or the
        // shorter one is the longer with letters left out ("source" → "src"). Of a path, the file's own name counts:
        // "queue/retries.md" is not a typo of "queue/indexes.md" because the folder is the same.
        int span = Math.max(fileName(best).length(), fileName(written).length());
        boolean close = bestDistance <= Math.max(2, span / 3)
                || abbreviates(written.toLowerCase(Locale.ROOT), best.toLowerCase(Locale.ROOT));
        return close ? " (did you mean '" + best + "'?)" : "";
    }

    /** Whether the shorter of two names (3 letters or more) is the longer with letters left out. */
    private static boolean abbreviates(String a, String b) {
        String shorter = a.length() <= b.length() ? a : b;
        String longer = a.length() <= b.length() ? b : a;
        if (shorter.length() < 3) {
            return false;
        }
        int at = 0;
        for (int i = 0; i < longer.length() && at < shorter.length(); i++) {
            if (longer.charAt(i) == shorter.charAt(at)) {
                at++;
            }
        }
        return at == shorter.length();
    }

    private static String fileName(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private static String folderOf(String path) {
        return path.substring(0, path.lastIndexOf('/') + 1);
    }

    /** Damerau-Levenshtein distance (optimal string alignment): insertions, deletions, substitutions, adjacent swaps. */
    static int distance(String a, String b) {
        int[] before = new int[b.length() + 1];
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    current[j] = Math.min(current[j], before[j - 2] + 1);
                }
            }
            int[] swap = before;
            before = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
