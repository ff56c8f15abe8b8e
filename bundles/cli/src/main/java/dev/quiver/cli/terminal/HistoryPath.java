package dev.quiver.cli.terminal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/** Where a workspace's prompt history is kept: {@code $XDG_STATE_HOME/quiver/history/<workspace hash>}. */
public final class HistoryPath {

    private HistoryPath() {
    }

    /**
     * The history file of a workspace: under {@code $XDG_STATE_HOME} (default {@code ~/.local/state}),
     * named by the first 16 hex digits of the SHA-256 of the workspace's absolute path.
     */
    public static Path of(Map<String, String> environment, Path workspace) {
        String state = environment.get("XDG_STATE_HOME");
        Path base;
        if (state != null && !state.isBlank() && Path.of(state).isAbsolute()) {
            base = Path.of(state);
        } else {
            String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
            base = Path.of(home, ".local", "state");
        }
        return base.resolve("quiver").resolve("history").resolve(hash(workspace.toAbsolutePath().normalize().toString()));
    }

    static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
