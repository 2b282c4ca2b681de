package dev.kensho.sqlchecks.execution;

import java.util.Map;

/**
 * Settings Kensho fixes on a page's role that older PostgreSQL versions lack, with the version each came
 * with. A version without one never had the behaviour it bounds (there is no transaction_timeout to reset
 * on 16), so leaving it out keeps the stock server of that version.
 */
final class ParametersByVersion {

    private static final Map<String, Integer> SINCE = Map.of(
            "transaction_timeout", 17,
            "auto_explain.log_parameter_max_length", 16,
            "scram_iterations", 16);

    private ParametersByVersion() {
    }

    /** Whether PostgreSQL {@code major} knows {@code parameter}. */
    static boolean exists(String parameter, int major) {
        return major >= SINCE.getOrDefault(parameter, 0);
    }
}
