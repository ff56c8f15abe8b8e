package dev.quiver.kernel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The user's configuration: a file given with {@code --config}, then the workspace's
 * {@code .quiver/config.json}, then the user's {@code ~/.config/quiver/config.json}. Each top-level
 * key is taken from the first file that has it. A file that cannot be read or parsed is reported
 * and skipped, so Quiver still starts with the other files and the defaults.
 */
final class Config {

    private volatile List<Source> sources;
    private final List<String> warnings;
    private final List<Path> files;
    private volatile String stamp;
    private volatile long generation;

    /** One file's parsed content. */
    record Source(Path file, JsonNode root) {
    }

    private Config(List<Path> files, List<Source> sources, List<String> warnings) {
        this.files = files;
        this.sources = sources;
        this.warnings = warnings;
        this.stamp = stamp(files);
    }

    static Config load(Optional<Path> explicit, Path workspace, Map<String, String> environment) {
        List<Path> files = new ArrayList<>();
        explicit.ifPresent(files::add);
        files.add(workspace.resolve(".quiver").resolve("config.json"));
        userConfigFile(environment).ifPresent(files::add);
        List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        return new Config(List.copyOf(files), read(files, explicit, warnings), warnings);
    }

    /** The config files, first read first. */
    List<Path> files() {
        return files;
    }

    /**
     * Reads the files again when one of them changed since they were read; returns whether they had.
     * New problems are added to the warnings.
     */
    synchronized boolean reloadIfChanged() {
        String now = stamp(files);
        if (now.equals(stamp)) {
            return false;
        }
        stamp = now;
        sources = read(files, Optional.empty(), warnings);
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
                stamp.append(Files.getLastModifiedTime(file).toMillis()).append(':').append(Files.size(file)).append(';');
            } catch (IOException missing) {
                stamp.append("-;");
            }
        }
        return stamp.toString();
    }

    private static List<Source> read(List<Path> files, Optional<Path> explicit, List<String> warnings) {
        List<Source> sources = new ArrayList<>();
        for (Path file : files) {
            if (!Files.exists(file)) {
                if (explicit.isPresent() && file.equals(explicit.get())) {
                    warnings.add("Config file " + file + " does not exist; using the other files and the defaults.");
                }
                continue;
            }
            try {
                JsonNode root = Json.MAPPER.readTree(Files.readString(file));
                if (root == null || !root.isObject()) {
                    warnings.add("Config file " + file + " is not a JSON object; ignoring it.");
                    continue;
                }
                sources.add(new Source(file, root));
            } catch (JsonProcessingException e) {
                warnings.add("Config file " + file + " is not valid JSON (" + e.getOriginalMessage() + " at line "
                        + (e.getLocation() == null ? "?" : e.getLocation().getLineNr()) + "); ignoring it.");
            } catch (IOException e) {
                warnings.add("Config file " + file + " cannot be read (" + e.getMessage() + "); ignoring it.");
            }
        }
        return List.copyOf(sources);
    }

    static Optional<Path> userConfigFile(Map<String, String> environment) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Optional.of(Path.of(xdg, "quiver", "config.json"));
        }
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        return home == null || home.isBlank() ? Optional.empty() : Optional.of(Path.of(home, ".config", "quiver", "config.json"));
    }

    /** The value of a top-level key from the first file that has it. */
    Optional<Value> get(String key) {
        for (Source source : sources) {
            JsonNode value = source.root().get(key);
            if (value != null && !value.isNull()) {
                return Optional.of(new Value(value, source.file()));
            }
        }
        return Optional.empty();
    }

    /** The values of a top-level key in every file that has it, first file first. */
    List<Map.Entry<Path, JsonNode>> all(String key) {
        List<Map.Entry<Path, JsonNode>> values = new ArrayList<>();
        for (Source source : sources) {
            JsonNode value = source.root().get(key);
            if (value != null && !value.isNull()) {
                values.add(Map.entry(source.file(), value));
            }
        }
        return values;
    }

    /** A top-level value as plain Java values (maps, lists, strings, numbers, booleans), for tools. */
    Optional<Object> plain(String key) {
        return get(key).map(value -> Json.MAPPER.convertValue(value.node(), Object.class));
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
        Optional<Value> value = get(key);
        if (value.isPresent() && !(value.get().node().canConvertToLong() && value.get().node().asLong() > 0)) {
            warnings.add("Config key '" + key + "' in " + value.get().file() + " must be a positive number; ignoring it.");
            return Optional.empty();
        }
        return value.map(v -> v.node().asLong());
    }

    List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** A configured value and the file it came from. */
    record Value(JsonNode node, Path file) {
    }
}
