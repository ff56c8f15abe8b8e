package dev.quiver.tools.core;

import java.util.Locale;
import java.util.Set;

/**
 * The default secret file names of the workspace ({@code Workspace.isSecret}), for the one place a
 * tool must judge a path without a workspace: {@code read_many_files} leaves a secret path out of its
 * permission subjects (the kernel asks the workspace-aware overload, which also follows links), reports
 * it refused in its own block and never reads it. A call refuses a path either list judges secret, so
 * the two may drift only towards refusing more; a test holds them equal.
 */
final class SecretNames {

    private static final Set<String> PRIVATE_KEYS = Set.of("id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "id_ecdsa_sk",
            "id_ed25519_sk");
    private static final Set<String> NAMED = Set.of(".netrc", ".pgpass", "_netrc");
    private static final Set<String> SUFFIXES = Set.of(".pem", ".key", ".p12", ".pfx");
    private static final Set<String> ENV_TEMPLATES = Set.of("example", "sample", "template", "dist", "defaults");

    private SecretNames() {
    }

    /** Whether the last segment of a path, as the model wrote it, is a secret file name. */
    static boolean isSecret(String path) {
        String trimmed = path.strip();
        while (trimmed.endsWith("/") && trimmed.length() > 1) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        String name = trimmed.substring(trimmed.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
        if (PRIVATE_KEYS.contains(name) || NAMED.contains(name)) {
            return true;
        }
        for (String suffix : SUFFIXES) {
            if (name.endsWith(suffix)) {
                return true;
            }
        }
        if (name.endsWith(".env")) {
            return true;
        }
        int env = name.indexOf(".env.");
        return env >= 0 && !ENV_TEMPLATES.contains(name.substring(env + ".env.".length()));
    }
}
