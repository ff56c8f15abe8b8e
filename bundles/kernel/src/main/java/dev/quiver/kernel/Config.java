package dev.quiver.kernel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.HostException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The configuration of a session, in three layers of authority (docs/configuration.md):
 *
 * <ol>
 *   <li><b>managed</b>: the files an organisation deploys ({@code /etc/quiver/managed.json}, the
 *       installation's {@code conf/managed.json}). A key it sets is fixed; its permission rules are
 *       merged with everyone's, and the strictest decision wins, so nothing below can loosen them; only
 *       it may set the {@code allowed*} lists. A managed file that cannot be read is fatal: Quiver
 *       refuses to start rather than run without the policy.</li>
 *   <li><b>user</b>: the {@code --config} file, then {@code ~/.config/quiver/config.json}; within the
 *       layer each key comes from the first file that has it.</li>
 *   <li><b>workspace</b>: {@code .quiver/config.json}. Until the user trusts the workspace it may only
 *       narrow: deny and ask rules, fewer tool sets, lower limits. Every other key is ignored and
 *       reported. A trusted workspace adds what the user left unset, but never {@code shell.env},
 *       {@code net.allowPrivate} or {@code net.allowHttp}, and
 *       its rules, like everyone's, cannot loosen a stricter one.</li>
 * </ol>
 *
 * <p>Files that cannot be read (other than managed ones) are reported and skipped. The files are read
 * again when one changes ({@link #reloadIfChanged}); so is the workspace's trust, which is tied to the
 * content of its config: a changed file is untrusted until trusted again.
 */
final class Config {

    /** Where a value came from, highest authority first. */
    enum Layer {
        MANAGED, USER, WORKSPACE
    }

    /** Keys an untrusted workspace may set, each only to narrow what the layers above allow. */
    static final Set<String> NARROWING = Set.of("permission", "toolSets", "toolTimeout", "modelTimeout", "contextTokens");
    /** Keys only the managed policy may set. */
    static final Set<String> MANAGED_ONLY = Set.of("allowedModels", "allowedBaseUrls", "allowedMcpServers",
            "allowedCatalogs");
    /**
     * Every top-level key Quiver reads; any other is reported at start-up, with a close match when there
     * is one. {@code $schema} is the editor hint opencode's and VS Code's files carry. A key with a dot in
     * it is a plugin's own (by convention its bundle's symbolic name) and is not reported.
     */
    static final Set<String> KNOWN = Set.of("$schema", "model", "baseUrl", "agent", "thinking", "subagentModel",
            "toolTimeout", "modelTimeout",
            "contextTokens", "toolSets", "permission", "shell", "net", "mcp", "mcpServers", "catalogs", "allowedModels",
            "allowedBaseUrls", "allowedMcpServers", "allowedCatalogs");
    /** The one key of a servers-only file: Claude Code's {@code .mcp.json} and {@code --mcp-config} files. */
    static final String SERVERS = "mcpServers";
    /** Object keys merged field by field across layers: a field the managed policy sets is fixed. */
    private static final Set<String> FIELD_MERGED = Set.of("shell", "net");
    /**
     * Fields of object keys that no workspace may set, trusted or not: {@code shell.env} passes secrets
     * to every command; {@code net.allowPrivate} and {@code net.allowHttp} would let a repository point
     * the net tools at the user's own networks or at plain http.
     */
    private static final Map<String, Set<String>> NEVER_FROM_WORKSPACE = Map.of("shell", Set.of("env"),
            "net", Set.of("allowPrivate", "allowHttp"));

    /**
     * Where the files are, and how the workspace's trust is judged.
     *
     * @param mcpConfigs files of Claude Code's {@code .mcp.json} shape named on the command line
     *     ({@code --mcp-config}): the user's, so trusted, read first in the user's layer
     */
    record Files(List<Path> managed, Optional<Path> explicit, List<Path> mcpConfigs, Optional<Path> user,
            Path workspaceRoot, Trust trust) {

        Files {
            mcpConfigs = List.copyOf(mcpConfigs);
        }

        Files(List<Path> managed, Optional<Path> explicit, Optional<Path> user, Path workspaceRoot, Trust trust) {
            this(managed, explicit, List.of(), user, workspaceRoot, trust);
        }

        Path workspaceFile() {
            return workspaceRoot.resolve(".quiver").resolve("config.json");
        }

        /** Claude Code's project servers file at the workspace root. */
        Path mcpJson() {
            return workspaceRoot.resolve(TrustStore.MCP_JSON);
        }

        List<Path> all() {
            List<Path> all = new ArrayList<>(managed);
            all.addAll(mcpConfigs);
            explicit.ifPresent(all::add);
            user.ifPresent(all::add);
            all.add(workspaceFile());
            all.add(mcpJson());
            return all;
        }

        /** What a change is watched in: the config files and every other file trust is given to. */
        List<Path> watched() {
            List<Path> watched = all();
            TrustStore.FILES.stream().map(workspaceRoot::resolve).filter(f -> !watched.contains(f)).forEach(watched::add);
            return watched;
        }
    }

    /** Whether the user trusts a workspace whose trust files ({@link TrustStore#FILES}) have this digest. */
    interface Trust {
        boolean trusts(Path workspaceRoot, String digest);
    }

    /**
     * One file's parsed content. A servers-only file ({@code .mcp.json}, {@code --mcp-config}) is held
     * as an object with its {@value #SERVERS} key alone, so no other key of it is ever read.
     */
    record Source(Path file, Layer layer, JsonNode root) {
    }

    /** A configured value and the file it came from. */
    record Value(JsonNode node, Path file) {
    }

    /** A permission value with where it came from; {@code narrowOnly} drops its allow entries. */
    record Permission(Path file, Layer layer, boolean narrowOnly, JsonNode node) {
    }

    private final Files files;
    /** The files whose change makes {@link #reloadIfChanged} read again: fixed, so listed once. */
    private final List<Path> watched;
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private volatile List<Source> sources;
    private volatile boolean trusted;
    private volatile Optional<String> sharedNotes = Optional.empty();
    private volatile List<String> held = List.of();
    private volatile String stamp;
    private volatile long generation;

    private Config(Files files) {
        this.files = files;
        this.watched = files.watched();
    }

    /**
     * Reads every layer.
     *
     * @throws HostException when a managed policy file exists but cannot be read or holds a bad value
     */
    static Config load(Files files) {
        Config config = new Config(files);
        config.stamp = stamp(config.watched);
        config.read(true);
        return config;
    }

    /** For tests and the old call sites: no managed policy, and a workspace trusted as the flag says. */
    static Config load(Optional<Path> explicit, Path workspace, Map<String, String> environment) {
        return load(new Files(List.of(), explicit, userConfigFile(environment), workspace, (root, digest) -> true));
    }

    /** The config files, first read first. */
    List<Path> files() {
        return files.all();
    }

    /** Quiver's folder in the user's config ({@code ~/.config/quiver}), where the user's own files are. */
    Optional<Path> userFolder() {
        return files.user().map(Path::getParent);
    }

    /** Whether the workspace layer is trusted now. */
    boolean trusted() {
        return trusted;
    }

    /**
     * The text of the workspace's {@link Notes#SHARED} as it was read with the config and trusted
     * with it; empty while the workspace is untrusted. Never read again from the file, which could
     * have changed since the trust was judged.
     */
    Optional<String> sharedNotes() {
        return sharedNotes;
    }

    /**
     * What the untrusted workspace's config holds that was ignored ({@code "model"}, {@code "allow
     * rules for bash"}); empty when the workspace is trusted or asks for nothing more.
     */
    List<String> held() {
        return held;
    }

    /**
     * Reads the files again when one of them changed since they were read; returns whether they had.
     * New problems are added to the warnings. A managed file that became unreadable keeps the policy
     * read before (reported), since running without it would loosen it.
     */
    synchronized boolean reloadIfChanged() {
        String now = stamp(watched);
        if (now.equals(stamp)) {
            return false;
        }
        stamp = now;
        read(false);
        generation++;
        return true;
    }

    /** Counts the reloads, so a watcher can tell that one happened even if someone else triggered it. */
    long generation() {
        return generation;
    }

    private static String stamp(List<Path> files) {
        StringBuilder stamp = new StringBuilder();
        for (Path file : files) {
            try {
                stamp.append(java.nio.file.Files.getLastModifiedTime(file).toMillis()).append(':')
                        .append(java.nio.file.Files.size(file)).append(';');
            } catch (IOException missing) {
                stamp.append("-;");
            }
        }
        return stamp.toString();
    }

    private void read(boolean first) {
        List<Source> read = new ArrayList<>();
        List<String> managedProblems = new ArrayList<>();
        for (Path file : files.managed()) {
            Optional<JsonNode> managed = readManaged(file, managedProblems);
            managed.ifPresent(root -> read.add(new Source(file, Layer.MANAGED, root)));
            if (!first && managed.isEmpty() && sources.stream().anyMatch(s -> s.file().equals(file))) {
                managedProblems.add("The managed policy " + file + " is gone or unreadable since Quiver started.");
            }
        }
        if (!managedProblems.isEmpty()) {
            if (first) {
                throw new HostException(String.join(" ", managedProblems) + " Quiver does not start without the "
                        + "managed policy; ask whoever manages this machine to fix it.");
            }
            // running on without the policy would loosen it: the one read before stays
            warnings.addAll(managedProblems);
            read.clear();
            sources.stream().filter(s -> s.layer() == Layer.MANAGED).forEach(read::add);
        }
        for (Path file : files.mcpConfigs()) {
            readServersFile(file, first).ifPresent(root -> read.add(new Source(file, Layer.USER, root)));
        }
        files.explicit().ifPresent(file -> readOrdinary(file, true).ifPresent(root -> read.add(new Source(file, Layer.USER,
                root))));
        files.user().ifPresent(file -> readOrdinary(file, false).ifPresent(root -> read.add(new Source(file, Layer.USER,
                root))));
        Path workspaceFile = files.workspaceFile();
        Map<String, TrustStore.Content> trustFiles = TrustStore.contents(files.workspaceRoot());
        Optional<JsonNode> workspace = parseWorkspace(workspaceFile, trustFiles.get(TrustStore.FILES.get(0)));
        workspace.ifPresent(root -> read.add(new Source(workspaceFile, Layer.WORKSPACE, root)));
        Optional<JsonNode> mcpJson = parseWorkspace(files.mcpJson(), trustFiles.get(TrustStore.MCP_JSON))
                .map(root -> serversOnly(files.mcpJson(), root));
        mcpJson.ifPresent(root -> read.add(new Source(files.mcpJson(), Layer.WORKSPACE, root)));
        for (Source source : read) {
            reportUnknownKeys(source);
            if (source.layer() != Layer.MANAGED) {
                for (String key : MANAGED_ONLY) {
                    if (source.root().has(key)) {
                        warnings.add("Config key '" + key + "' in " + source.file() + " is ignored: only the managed "
                                + "policy (/etc/quiver/managed.json or the installation's conf/managed.json) sets it.");
                    }
                }
            }
        }
        boolean trustedNow;
        try {
            trustedNow = files.trust().trusts(files.workspaceRoot(), TrustStore.digest(trustFiles));
        } catch (RuntimeException e) {
            trustedNow = false; // a trust store that cannot be read trusts nothing
        }
        sources = List.copyOf(read);
        trusted = trustedNow;
        TrustStore.Content notes = trustFiles.get(Notes.SHARED);
        sharedNotes = trustedNow ? notes.bytes().map(b -> new String(b, java.nio.charset.StandardCharsets.UTF_8))
                : Optional.empty();
        List<String> heldNow = new ArrayList<>();
        if (!trustedNow) {
            workspace.ifPresent(root -> heldNow.addAll(heldBack(root)));
            mcpJson.map(Config::serverNames).filter(names -> !names.isEmpty())
                    .ifPresent(names -> heldNow.add("the MCP servers of " + TrustStore.MCP_JSON + " (" + names + ")"));
            if (trustFiles.get(Notes.SHARED).bytes().isPresent()) {
                heldNow.add(Notes.SHARED + " (kept out of the prompt)");
            }
        }
        held = List.copyOf(heldNow);
        mergedServers(sources); // so that its problems are among the start-up warnings
    }

    private static Optional<JsonNode> readManaged(Path file, List<String> problems) {
        if (java.nio.file.Files.notExists(file, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        if (!java.nio.file.Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            // neither there nor provably absent (a folder that cannot be searched): fail closed
            problems.add("Whether the managed policy " + file + " exists cannot be told (check the folder's permissions).");
            return Optional.empty();
        }
        try {
            JsonNode root = Json.CONFIG.readTree(text(file));
            if (root == null || !root.isObject()) {
                problems.add("The managed policy " + file + " is not a JSON object.");
                return Optional.empty();
            }
            for (String key : MANAGED_ONLY) {
                JsonNode list = root.get(key);
                if (list != null && !(list.isArray() && iterable(list.elements()).stream()
                        .allMatch(item -> item.isTextual() || (key.equals("allowedMcpServers") && item.isObject())))) {
                    problems.add("The managed policy " + file + " has a bad '" + key + "': it must be a list of "
                            + (key.equals("allowedMcpServers") ? "server names or {\"name\", \"command\", \"url\"} objects"
                                    : "patterns") + ".");
                }
            }
            return Optional.of(root);
        } catch (JsonProcessingException e) {
            problems.add("The managed policy " + file + " is not valid JSON (" + e.getOriginalMessage() + " at line "
                    + (e.getLocation() == null ? "?" : e.getLocation().getLineNr()) + ").");
        } catch (IOException e) {
            problems.add("The managed policy " + file + " cannot be read (" + e.getMessage() + ").");
        }
        return Optional.empty();
    }

    /** The workspace's config from the bytes read for its trust: what is trusted is what is parsed. */
    private Optional<JsonNode> parseWorkspace(Path file, TrustStore.Content content) {
        if (content.problem().isPresent()) {
            warnings.add("Config file " + file + " cannot be read (" + content.problem().get() + "); ignoring it.");
            return Optional.empty();
        }
        if (content.bytes().isEmpty()) {
            return Optional.empty();
        }
        return parseOrdinary(file, () -> new String(content.bytes().get(), java.nio.charset.StandardCharsets.UTF_8));
    }

    /** A source of a config file's text. */
    private interface Text {
        String read() throws IOException;
    }

    private Optional<JsonNode> readOrdinary(Path file, boolean named) {
        if (!java.nio.file.Files.exists(file)) {
            if (named) {
                warnings.add("Config file " + file + " does not exist; using the other files and the defaults.");
            }
            return Optional.empty();
        }
        return parseOrdinary(file, () -> text(file));
    }

    private Optional<JsonNode> parseOrdinary(Path file, Text text) {
        try {
            JsonNode root = Json.CONFIG.readTree(text.read());
            if (root == null || !root.isObject()) {
                warnings.add("Config file " + file + " is not a JSON object; ignoring it.");
                return Optional.empty();
            }
            return Optional.of(root);
        } catch (JsonProcessingException e) {
            warnings.add("Config file " + file + " is not valid JSON (" + e.getOriginalMessage() + " at line "
                    + (e.getLocation() == null ? "?" : e.getLocation().getLineNr()) + "); ignoring it.");
        } catch (IOException e) {
            warnings.add("Config file " + file + " cannot be read (" + e.getMessage() + "); ignoring it.");
        }
        return Optional.empty();
    }

    /**
     * A {@code --mcp-config} file. The user named it for this run, so at start a file that cannot be
     * used stops the command rather than running without the servers asked for; a later reload that
     * breaks it is reported and keeps nothing of it.
     */
    private Optional<JsonNode> readServersFile(Path file, boolean first) {
        String problem = "does not exist";
        if (java.nio.file.Files.exists(file)) {
            try {
                JsonNode root = Json.CONFIG.readTree(text(file));
                if (root != null && root.isObject() && root.path(SERVERS).isObject()) {
                    return Optional.of(serversOnly(file, root));
                }
                problem = "has no \"" + SERVERS + "\" object (the shape of Claude Code's .mcp.json: {\"" + SERVERS
                        + "\": {\"NAME\": {\"command\": ...}}})";
            } catch (JsonProcessingException e) {
                problem = "is not valid JSON (" + e.getOriginalMessage() + " at line "
                        + (e.getLocation() == null ? "?" : e.getLocation().getLineNr()) + ")";
            } catch (IOException e) {
                problem = "cannot be read (" + e.getMessage() + ")";
            }
        }
        String message = "The --mcp-config file " + file + " " + problem + ".";
        if (first) {
            throw new HostException(message + " Fix it or leave the option out.");
        }
        warnings.add(message + " Its servers are left out.");
        return Optional.empty();
    }

    /**
     * A servers-only file as a source: its {@value #SERVERS} key alone. Any other key is reported,
     * since nothing else of such a file is read (a {@code "model"} in a repository's {@code .mcp.json}
     * must not choose the model).
     */
    private JsonNode serversOnly(Path file, JsonNode root) {
        ObjectNode kept = Json.MAPPER.createObjectNode();
        root.fieldNames().forEachRemaining(key -> {
            if (key.equals(SERVERS)) {
                kept.set(key, root.get(key));
            } else if (!key.equals("$schema")) {
                warnOnce("Key '" + key + "' in " + file + " is ignored: this file holds only \"" + SERVERS
                        + "\" (Claude Code's shape)" + (key.equals("mcp") ? "; rename it to \"" + SERVERS + "\"." : "."));
            }
        });
        return kept;
    }

    /** The server names of a servers-only source, for the untrusted notice. */
    private static String serverNames(JsonNode root) {
        List<String> names = new ArrayList<>();
        root.path(SERVERS).fieldNames().forEachRemaining(names::add);
        return String.join(", ", names);
    }

    /** Names a config file's top-level keys that Quiver does not read, with the known key meant when one is close. */
    private void reportUnknownKeys(Source source) {
        source.root().fieldNames().forEachRemaining(key -> {
            if (KNOWN.contains(key) || key.contains(".")) {
                return;
            }
            Optional<String> meant = closest(key, KNOWN);
            warnOnce("Config key '" + key + "' in " + source.file() + " is not one Quiver reads"
                    + meant.map(k -> " (did you mean '" + k + "'?)").orElse("") + "; it is ignored.");
        });
    }

    /**
     * The known key a mistyped one most likely meant: the same letters in another case or with
     * {@code _} or {@code -} ({@code mcp_servers}, {@code baseURL}), one that ends with it
     * ({@code servers}), or one at most two edits away ({@code permissions}); the shortest of equals.
     */
    static Optional<String> closest(String key, Set<String> known) {
        String plain = key.replaceAll("[_\\-]", "").toLowerCase(java.util.Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : new java.util.TreeSet<>(known)) {
            String lower = candidate.toLowerCase(java.util.Locale.ROOT);
            int distance = lower.equals(plain) ? 0
                    : plain.length() >= 4 && lower.endsWith(plain) ? 1 : editDistance(plain, lower);
            if (distance < bestDistance || distance == bestDistance && candidate.length() < best.length()) {
                bestDistance = distance;
                best = candidate;
            }
        }
        return bestDistance <= (plain.length() <= 4 ? 1 : 2) ? Optional.ofNullable(best) : Optional.empty();
    }

    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** Config files are small: one that is not a regular file or is huge is refused before it is read. */
    static final long MAX_BYTES = 1024 * 1024;

    /**
     * A config file's text. A link is followed (dotfile repositories link the user's config), but a
     * pipe, a device or a huge file, which a hostile repository could plant as its config to hang or
     * exhaust a start, is refused.
     */
    static String text(Path file) throws IOException {
        return new String(bytes(file), java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * A config file's bytes, when it is a regular file of at most {@link #MAX_BYTES} (checked before
     * it is opened: opening a pipe would wait for a writer that never comes).
     *
     * @param options {@link LinkOption#NOFOLLOW_LINKS} to refuse a link
     */
    static byte[] bytes(Path file, LinkOption... options) throws IOException {
        if (!java.nio.file.Files.isRegularFile(file, options)) {
            throw new IOException("not a regular file");
        }
        byte[] bytes;
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file, options)) {
            bytes = in.readNBytes((int) MAX_BYTES + 1);
        }
        if (bytes.length > MAX_BYTES) {
            throw new IOException("larger than " + MAX_BYTES / 1024 + " KB");
        }
        return bytes;
    }

    /** What an untrusted workspace's config asks for beyond narrowing, in words for the user. */
    private static List<String> heldBack(JsonNode root) {
        List<String> held = new ArrayList<>();
        for (Iterator<String> names = root.fieldNames(); names.hasNext();) {
            String key = names.next();
            if (MANAGED_ONLY.contains(key)) {
                continue; // reported as managed-only already
            }
            if (key.equals("permission")) {
                Set<String> tools = new java.util.TreeSet<>();
                JsonNode permission = root.get(key);
                if (permission.isObject()) {
                    permission.fields().forEachRemaining(tool -> {
                        JsonNode table = tool.getValue();
                        boolean allows = table.isTextual() ? isAllow(table)
                                : table.isObject() && iterable(table.elements()).stream().anyMatch(Config::isAllow);
                        if (allows) {
                            tools.add(tool.getKey());
                        }
                    });
                }
                if (!tools.isEmpty()) {
                    held.add("allow rules for " + String.join(", ", tools));
                }
            } else if (!NARROWING.contains(key)) {
                held.add(key);
            }
        }
        return held;
    }

    private static boolean isAllow(JsonNode decision) {
        return decision.isTextual() && decision.asText().strip().equalsIgnoreCase("allow");
    }

    private static <T> List<T> iterable(Iterator<T> iterator) {
        List<T> all = new ArrayList<>();
        iterator.forEachRemaining(all::add);
        return all;
    }

    static Optional<Path> userConfigFile(Map<String, String> environment) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Optional.of(Path.of(xdg, "quiver", "config.json"));
        }
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        return home == null || home.isBlank() ? Optional.empty() : Optional.of(Path.of(home, ".config", "quiver", "config.json"));
    }

    /** Whether a source's value of a key counts: an untrusted workspace counts for narrowing keys only. */
    private boolean counts(Source source, String key) {
        if (MANAGED_ONLY.contains(key)) {
            return source.layer() == Layer.MANAGED;
        }
        return source.layer() != Layer.WORKSPACE || trusted;
    }

    /**
     * The value of a top-level key: the managed policy's, else the first user file's, else a trusted
     * workspace's. {@code shell} and {@code net} merge field by field, so a field the managed policy
     * sets stays; {@code mcp} merges its servers by name, the higher layer's entry winning. An
     * untrusted workspace contributes nothing here (see {@link #narrowing}).
     */
    Optional<Value> get(String key) {
        List<Source> current = sources;
        if (key.equals("mcp")) {
            return mergedServers(current);
        }
        if (key.equals("shell") && !trusted) {
            return Optional.of(sandboxedWhileUntrusted(merged(current, key)));
        }
        return merged(current, key);
    }

    /**
     * In a workspace the user has not trusted, commands run in the sandbox or not at all: {@code auto}
     * (which runs them unsandboxed where bubblewrap is missing) means {@code required}. Only an
     * explicit {@code "off"} of the user or the managed policy stands.
     */
    private Value sandboxedWhileUntrusted(Optional<Value> shell) {
        if (shell.isPresent() && shell.get().node().isObject()
                && "off".equals(shell.get().node().path("sandbox").asText(null))) {
            return shell.get();
        }
        ObjectNode node = shell.filter(v -> v.node().isObject()).map(v -> ((ObjectNode) v.node()).deepCopy())
                .orElseGet(Json.MAPPER::createObjectNode);
        node.put("sandbox", "required");
        return new Value(node, shell.map(Value::file).orElse(files.workspaceFile()));
    }

    private Optional<Value> merged(List<Source> current, String key) {
        Optional<Value> found = Optional.empty();
        for (Source source : current) {
            JsonNode value = source.root().get(key);
            if (value == null || value.isNull() || !counts(source, key)) {
                continue;
            }
            value = withoutWorkspaceOnlyFields(source, key, value);
            if (key.equals("catalogs")) {
                value = allowedCatalogs(value);
            }
            if (found.isEmpty()) {
                found = Optional.of(new Value(value, source.file()));
                if (!FIELD_MERGED.contains(key) || !value.isObject()) {
                    return found;
                }
            } else if (found.get().node().isObject() && value.isObject()) {
                ObjectNode merged = ((ObjectNode) found.get().node()).deepCopy();
                value.fields().forEachRemaining(field -> {
                    if (!merged.has(field.getKey())) {
                        merged.set(field.getKey(), field.getValue());
                    }
                });
                found = Optional.of(new Value(merged, found.get().file()));
            }
        }
        return found;
    }

    private static JsonNode withoutWorkspaceOnlyFields(Source source, String key, JsonNode value) {
        Set<String> never = NEVER_FROM_WORKSPACE.get(key);
        if (source.layer() != Layer.WORKSPACE || never == null || !value.isObject()) {
            return value;
        }
        ObjectNode copy = ((ObjectNode) value).deepCopy();
        copy.remove(never);
        return copy;
    }

    /**
     * The MCP servers of every source that counts, by name, the higher layer's entry first: each file's
     * {@code mcp} (Quiver's and opencode's key) and {@value #SERVERS} (Claude Code's), {@code --mcp-config}
     * files and the workspace's {@code .mcp.json}. Within one file a name in both keys is {@code mcp}'s.
     */
    private Optional<Value> mergedServers(List<Source> current) {
        ObjectNode merged = null;
        Path first = null;
        for (Source source : current) {
            for (String key : List.of("mcp", SERVERS)) {
                JsonNode value = source.root().get(key);
                if (value == null || value.isNull() || !counts(source, key)) {
                    continue;
                }
                if (!value.isObject()) {
                    warnOnce("Config key '" + key + "' in " + source.file() + " must be an object of servers by name; "
                            + "ignoring it.");
                    continue;
                }
                if (merged == null) {
                    merged = Json.MAPPER.createObjectNode();
                    first = source.file();
                }
                for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> server = it.next();
                    if (!merged.has(server.getKey())) {
                        merged.set(server.getKey(), server.getValue());
                    } else if (key.equals(SERVERS) && source.root().path("mcp").has(server.getKey())) {
                        warnOnce("MCP server '" + server.getKey() + "' is in both 'mcp' and '" + SERVERS + "' of "
                                + source.file() + "; the one in 'mcp' is used.");
                    }
                }
            }
        }
        if (merged == null) {
            return Optional.empty();
        }
        Optional<Value> allowed = get("allowedMcpServers");
        if (allowed.isPresent()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = merged.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> server = it.next();
                if (!allowedServer(allowed.get().node(), server.getKey(), server.getValue())) {
                    it.remove();
                    warnOnce("MCP server '" + server.getKey() + "' is not started: the managed policy's "
                            + "allowedMcpServers does not list it.");
                }
            }
        }
        return Optional.of(new Value(merged, first));
    }

    /**
     * Whether a managed pattern admits a URL (parsed, host and path matched apart) or a file path
     * (matched normalised, so {@code /opt/company/*} never admits {@code /opt/company/../../tmp/x}).
     */
    static boolean allowedLocation(String pattern, String where) {
        if (pattern.contains("://") || where.contains("://")) {
            return dev.quiver.langchain4j.BaseUrls.allowedBy(pattern, where);
        }
        try {
            return dev.quiver.kernel.permission.Wildcard.matches(pattern, Path.of(where).normalize().toString());
        } catch (java.nio.file.InvalidPathException e) {
            return false;
        }
    }

    /**
     * Whether one entry of the managed {@code allowedMcpServers} admits a server: a string is a pattern
     * for its name; an object matches when each of its fields does — {@code name} (a pattern),
     * {@code command} (the command and its arguments, exactly), {@code url} (a pattern).
     */
    private static boolean allowedServer(JsonNode allowed, String name, JsonNode server) {
        for (JsonNode entry : allowed) {
            if (entry.isTextual()) {
                if (dev.quiver.kernel.permission.Wildcard.matches(entry.asText(), name)) {
                    return true;
                }
                continue;
            }
            boolean matches = !entry.isEmpty();
            if (entry.has("name")) {
                matches &= dev.quiver.kernel.permission.Wildcard.matches(entry.get("name").asText(), name);
            }
            if (entry.has("command")) {
                // Quiver's and Claude Code's "command" is the program, opencode's the whole command line
                ArrayNode command = Json.MAPPER.createArrayNode();
                JsonNode program = server.path("command");
                if (program.isArray()) {
                    program.forEach(command::add);
                } else {
                    command.add(program);
                }
                server.path("args").forEach(command::add);
                matches &= entry.get("command").equals(command);
            }
            if (entry.has("url")) {
                matches &= server.path("url").isTextual()
                        && allowedLocation(entry.get("url").asText(), server.path("url").asText());
            }
            if (matches) {
                return true;
            }
        }
        return false;
    }

    /** An untrusted workspace's value of a narrowing key, which may only restrict the resolved one. */
    Optional<Value> narrowing(String key) {
        if (trusted || !NARROWING.contains(key)) {
            return Optional.empty();
        }
        for (Source source : sources) {
            JsonNode value = source.root().get(key);
            if (source.layer() == Layer.WORKSPACE && value != null && !value.isNull()) {
                return Optional.of(new Value(value, source.file()));
            }
        }
        return Optional.empty();
    }

    /**
     * The {@code permission} values of every layer, highest first; an untrusted workspace's keeps its
     * deny and ask entries only.
     */
    List<Permission> permissions() {
        List<Permission> all = new ArrayList<>();
        for (Source source : sources) {
            JsonNode value = source.root().get("permission");
            if (value != null && !value.isNull()) {
                all.add(new Permission(source.file(), source.layer(), source.layer() == Layer.WORKSPACE && !trusted,
                        value));
            }
        }
        return all;
    }

    /** A top-level value as plain Java values (maps, lists, strings, numbers, booleans), for tools. */
    Optional<Object> plain(String key) {
        return get(key).map(value -> Json.MAPPER.convertValue(value.node(), Object.class));
    }

    private void warnOnce(String warning) {
        if (!warnings.contains(warning)) {
            warnings.add(warning);
        }
    }

    /**
     * The catalogue sources the managed {@code allowedCatalogs} patterns admit (matched on a source's
     * URL or path); the value as it was when the policy has no such list.
     */
    private JsonNode allowedCatalogs(JsonNode value) {
        Optional<List<String>> allowed = managedList("allowedCatalogs");
        if (allowed.isEmpty()) {
            return value;
        }
        JsonNode list = value.isObject() ? value.path("sources") : value;
        if (!list.isArray()) {
            return value;
        }
        ArrayNode kept = Json.MAPPER.createArrayNode();
        for (JsonNode source : list) {
            String where = source.isTextual() ? source.asText() : source.path("url").asText(source.path("path").asText(""));
            if (allowed.get().stream().anyMatch(pattern -> allowedLocation(pattern, where))) {
                kept.add(source);
            } else {
                warnOnce("Catalogue " + where + " is not used: the managed policy's allowedCatalogs does not list it.");
            }
        }
        if (value.isObject()) {
            ObjectNode copy = ((ObjectNode) value).deepCopy();
            copy.set("sources", kept);
            return copy;
        }
        return kept;
    }

    /** Adds a problem found by a reader of one of the keys. */
    void warn(String warning) {
        warnings.add(warning);
    }

    /** A text value, with a warning when the key holds something else. */
    Optional<String> text(String key) {
        Optional<Value> value = get(key);
        if (value.isPresent() && !value.get().node().isTextual()) {
            warnings.add("Config key '" + key + "' in " + value.get().file() + " must be a string; ignoring it.");
            return Optional.empty();
        }
        return value.map(v -> v.node().asText());
    }

    /** A positive whole number, with a warning when the key holds something else. */
    Optional<Long> positiveNumber(String key) {
        return positive(get(key), key);
    }

    /**
     * A limit: the configured positive number, else the default; lowered by an untrusted workspace's
     * value, which may make it smaller, never larger.
     */
    long limit(String key, long fallback) {
        long value = positiveNumber(key).orElse(fallback);
        Optional<Long> lower = positive(narrowing(key), key);
        return lower.isPresent() && lower.get() < value ? lower.get() : value;
    }

    private Optional<Long> positive(Optional<Value> value, String key) {
        if (value.isPresent() && !(value.get().node().canConvertToLong() && value.get().node().asLong() > 0)) {
            warnings.add("Config key '" + key + "' in " + value.get().file() + " must be a positive number; ignoring it.");
            return Optional.empty();
        }
        return value.map(v -> v.node().asLong());
    }

    /** A list of strings of a managed-only key; empty when unset (no restriction). */
    Optional<List<String>> managedList(String key) {
        Optional<Value> value = get(key);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        List<String> items = new ArrayList<>();
        JsonNode node = value.get().node();
        if (node instanceof ArrayNode array) {
            for (JsonNode item : array) {
                if (item.isTextual()) {
                    items.add(item.asText());
                }
            }
        }
        return Optional.of(items);
    }

    List<String> warnings() {
        return List.copyOf(new LinkedHashSet<>(warnings));
    }
}
