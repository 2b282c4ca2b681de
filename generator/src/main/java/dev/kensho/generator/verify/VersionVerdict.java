package dev.kensho.generator.verify;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a claim checked on several PostgreSQL versions is reported when it failed on some: where it held, then each
 * failure with the versions it happened on ("holds on 18; on 14, 15, 16, 17: column "old" does not exist"). One
 * wording for a build that checked the versions itself and for the merge of a CI matrix's per-version reports.
 */
public final class VersionVerdict {

    private VersionVerdict() {
    }

    /**
     * @param held     the versions the claim held on, oldest first
     * @param failedBy each failure's message → the versions it happened on, in the order first seen
     */
    public static String failure(List<Integer> held, Map<String, List<Integer>> failedBy) {
        StringBuilder message = new StringBuilder();
        if (!held.isEmpty()) {
            message.append("holds on ").append(join(held)).append("; ");
        }
        List<String> parts = new ArrayList<>();
        failedBy.forEach((text, versions) -> parts.add("on " + join(versions) + ": " + text));
        return message.append(String.join("; ", parts)).toString();
    }

    private static String join(List<Integer> versions) {
        return String.join(", ", versions.stream().map(String::valueOf).toList());
    }
}
