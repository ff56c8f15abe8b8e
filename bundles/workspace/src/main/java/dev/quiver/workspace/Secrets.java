package dev.quiver.workspace;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/** File names that hold secrets: what is refused on read, skipped by grep and masked by the sandbox. */
final class Secrets {

    private static final Set<String> PRIVATE_KEYS = Set.of("id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "id_ecdsa_sk",
            "id_ed25519_sk");
    private static final Set<String> NAMED = Set.of(".netrc", ".pgpass", "_netrc");
    private static final Set<String> SUFFIXES = Set.of(".pem", ".key", ".p12", ".pfx");
    /** Templates meant to be committed and read. */
    private static final Set<String> ENV_TEMPLATES = Set.of("example", "sample", "template", "dist", "defaults");

    private Secrets() {
    }

    static boolean isSecret(Path path) {
        Path file = path.getFileName();
        return file != null && isSecretName(file.toString());
    }

    static boolean isSecretName(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (PRIVATE_KEYS.contains(lower) || NAMED.contains(lower)) {
            return true;
        }
        for (String suffix : SUFFIXES) {
            if (lower.endsWith(suffix)) {
                return true;
            }
        }
        if (lower.endsWith(".env")) {
            return true;
        }
        int env = lower.indexOf(".env.");
        if (env >= 0) {
            String rest = lower.substring(env + ".env.".length());
            return !ENV_TEMPLATES.contains(rest);
        }
        return false;
    }
}
