package dev.quiver.kernel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a process Quiver starts for a tool or a session inherits: Quiver's environment less its
 * secrets. Removed are the model providers' keys and every variable whose name contains one of
 * {@link #SECRET_PARTS} (after Codex's default policy), except the names the user's or the
 * installation's {@code "shell": {"env": [...]}} passes through. The values removed are kept, so
 * the redaction of tool results can replace them wherever they turn up.
 */
final class ProcessEnvironment {

    /** A variable whose upper-cased name contains one of these holds a secret unless passed through. */
    static final List<String> SECRET_PARTS = List.of("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL");
    /** Secrets whose names say nothing: the ssh agent's socket hands out keys to whoever reaches it. */
    private static final Set<String> SECRET_NAMES = Set.of("SSH_AUTH_SOCK", "GPG_AGENT_INFO");

    private final Map<String, String> kept;
    private final Map<String, String> removed;

    private ProcessEnvironment(Map<String, String> kept, Map<String, String> removed) {
        this.kept = Collections.unmodifiableMap(kept);
        this.removed = Collections.unmodifiableMap(removed);
    }

    /**
     * Splits an environment.
     *
     * @param environment Quiver's own
     * @param passThrough names (or {@code *} patterns) kept although they look secret
     */
    static ProcessEnvironment of(Map<String, String> environment, List<String> passThrough) {
        Map<String, String> kept = new LinkedHashMap<>();
        Map<String, String> removed = new LinkedHashMap<>();
        environment.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(variable -> {
            String name = variable.getKey();
            if (secret(name) && passThrough.stream().noneMatch(pattern -> dev.quiver.kernel.permission.Wildcard
                    .matches(pattern, name))) {
                removed.put(name, variable.getValue());
            } else {
                kept.put(name, variable.getValue());
            }
        });
        return new ProcessEnvironment(kept, removed);
    }

    static boolean secret(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        if (SECRET_NAMES.contains(upper)) {
            return true;
        }
        for (String part : SECRET_PARTS) {
            if (upper.contains(part)) {
                return true;
            }
        }
        return false;
    }

    /** The environment a process gets. */
    Map<String, String> kept() {
        return kept;
    }

    /** The names removed, for the docs and the start-up report. */
    List<String> removedNames() {
        return new ArrayList<>(removed.keySet());
    }

    /** The values removed, each with the name of its variable. */
    Map<String, String> removed() {
        return removed;
    }
}
