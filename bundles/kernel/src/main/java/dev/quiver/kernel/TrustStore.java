package dev.quiver.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.TrustedWorkspace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The workspaces the user trusts, kept in the user's state ({@code $XDG_STATE_HOME/quiver/trusted-workspaces.json},
 * by default under {@code ~/.local/state}), outside every working tree and outside the sandbox's view.
 * An entry is a workspace's real path and a SHA-256 digest of its files that trust gives effect to
 * ({@link #FILES}) as they were when trusted: a workspace whose files changed since (a pull, a
 * checkout, a command that rewrote one) is untrusted until trusted again. The digest is taken of the
 * very bytes {@link Config} then parses ({@link #contents}), so no file swapped between a check and a
 * read is ever trusted.
 */
final class TrustStore implements Config.Trust {

    /** Claude Code's project MCP servers file, at the workspace root. */
    static final String MCP_JSON = ".mcp.json";
    /** The files whose content trust is given to, relative to the workspace root. */
    static final List<String> FILES = List.of(".quiver/config.json", Notes.SHARED, MCP_JSON);
    /**
     * Trust files added after trust was first recorded: one that is missing is left out of the digest,
     * so a workspace trusted before stays trusted until such a file appears in it.
     */
    private static final java.util.Set<String> ADDED_LATER = java.util.Set.of(MCP_JSON);

    /**
     * One of {@link #FILES} as read: its bytes, or why it could not be read (then it is neither parsed
     * nor trusted). Both empty: the file does not exist.
     */
    record Content(Optional<byte[]> bytes, Optional<String> problem) {

        static final Content MISSING = new Content(Optional.empty(), Optional.empty());
    }

    private final Path file;

    TrustStore(Path file) {
        this.file = file;
    }

    static TrustStore fromEnvironment(Map<String, String> environment) {
        String state = environment.get("XDG_STATE_HOME");
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        Path base = state != null && !state.isBlank() ? Path.of(state) : Path.of(home, ".local", "state");
        return new TrustStore(base.resolve("quiver").resolve("trusted-workspaces.json"));
    }

    Path file() {
        return file;
    }

    @Override
    public boolean trusts(Path workspaceRoot, String digest) {
        JsonNode entry = read().get(workspaceRoot.toString());
        return entry != null && digest.equals(entry.path("digest").asText());
    }

    /** Trusts a workspace as its config files are now. */
    synchronized void trust(Path workspaceRoot) {
        ObjectNode all = read();
        ObjectNode entry = all.putObject(workspaceRoot.toString());
        entry.put("digest", digest(contents(workspaceRoot)));
        entry.put("trusted", Instant.now().toString());
        write(all);
    }

    /** Forgets a workspace; whether it was trusted. */
    synchronized boolean revoke(Path workspaceRoot) {
        ObjectNode all = read();
        boolean had = all.remove(workspaceRoot.toString()) != null;
        if (had) {
            write(all);
        }
        return had;
    }

    /** Every trusted workspace, with whether its config still matches what was trusted. */
    List<TrustedWorkspace> list() {
        List<TrustedWorkspace> list = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = read().fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> entry = it.next();
            Path root = Path.of(entry.getKey());
            Instant since;
            try {
                since = Instant.parse(entry.getValue().path("trusted").asText());
            } catch (RuntimeException e) {
                since = Instant.EPOCH;
            }
            boolean current = Files.isDirectory(root)
                    && digest(contents(root)).equals(entry.getValue().path("digest").asText());
            list.add(new TrustedWorkspace(root, since, current));
        }
        return list;
    }

    private ObjectNode read() {
        if (!Files.exists(file)) {
            return Json.MAPPER.createObjectNode();
        }
        try {
            JsonNode root = Json.MAPPER.readTree(Config.text(file));
            if (root != null && root.path("workspaces").isObject()) {
                return (ObjectNode) root.get("workspaces");
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable store trusts nothing; trusting again rewrites it
        }
        return Json.MAPPER.createObjectNode();
    }

    private void write(ObjectNode workspaces) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("version", 1);
        root.set("workspaces", workspaces);
        try {
            Files.createDirectories(file.getParent());
            Path temporary = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            try {
                Files.writeString(temporary, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
                try {
                    Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException e) {
            throw new HostException("Cannot record trust in " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads each of {@link #FILES} once: only a plain file (a link could lend the workspace any file's
     * content, or be swapped under a check), no larger than {@link Config#MAX_BYTES}.
     */
    static Map<String, Content> contents(Path workspaceRoot) {
        Map<String, Content> contents = new java.util.LinkedHashMap<>();
        for (String name : FILES) {
            Path path = workspaceRoot.resolve(name);
            Content content;
            if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                content = Content.MISSING;
            } else if (Files.isSymbolicLink(path)) {
                content = new Content(Optional.empty(), Optional.of("it is a link; a workspace's " + name
                        + " is read only as a plain file"));
            } else {
                try {
                    content = new Content(Optional.of(Config.bytes(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)),
                            Optional.empty());
                } catch (IOException e) {
                    content = new Content(Optional.empty(), Optional.of(String.valueOf(e.getMessage())));
                }
            }
            contents.put(name, content);
        }
        return contents;
    }

    /**
     * SHA-256 over each trust file's name and content ({@code -} for a missing one), every part preceded
     * by its length, so no two sets of files digest alike by moving bytes from one file's end to the next
     * one's name (a padded config.json and a .mcp.json that appears later, say). A file that could not be
     * read digests as a one-off value, so it never matches a trusted one.
     */
    static String digest(Map<String, Content> contents) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (Map.Entry<String, Content> file : contents.entrySet()) {
            Content content = file.getValue();
            if (ADDED_LATER.contains(file.getKey()) && content.equals(Content.MISSING)) {
                continue;
            }
            part(sha, file.getKey().getBytes(StandardCharsets.UTF_8));
            if (content.problem().isPresent()) {
                part(sha, ("unreadable " + System.nanoTime() + Math.random()).getBytes(StandardCharsets.UTF_8));
            } else if (content.bytes().isPresent()) {
                sha.update((byte) '+');
                part(sha, content.bytes().get());
            } else {
                sha.update((byte) '-');
            }
        }
        return "sha256:" + HexFormat.of().formatHex(sha.digest());
    }

    private static void part(MessageDigest sha, byte[] bytes) {
        sha.update(java.nio.ByteBuffer.allocate(Long.BYTES).putLong(bytes.length).array());
        sha.update(bytes);
    }
}
