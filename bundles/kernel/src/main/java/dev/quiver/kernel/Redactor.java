package dev.quiver.kernel;

import dev.quiver.api.Workspace;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The backstop behind every refusal of a secret: the values of known secrets are replaced in every
 * tool result before it reaches the model, a front end, the session file or the audit log. Known are
 * the values of the variables removed from tool processes' environment ({@link ProcessEnvironment})
 * and the contents of the workspace's secret files ({@link Workspace#secretFiles()}): of each line, the
 * value of a {@code NAME=value} or {@code name: value} line, or the whole line (a key's body). Only a
 * value shaped like a secret counts: {@value #MIN_CHARS} to {@value #MAX_CHARS} characters with no
 * white space, quotes, brackets or semicolons. So a word such as {@code true} or {@code 3306} is never
 * redacted everywhere, and a repository cannot ship a {@code fixtures/sample.env} whose lines blank
 * the same lines of its code from the model's view (code has spaces and brackets; a key does not).
 *
 * <p>What this cannot catch, and docs/permissions.md says so: a value transformed on the way (base64,
 * hex, split over lines, another encoding), a value older than what git's index and HEAD record
 * (those are read too), a secret file deleted from the working tree, and secrets in files whose
 * names do not mark them.
 */
final class Redactor {

    static final int MIN_CHARS = 8;
    static final int MAX_CHARS = 4096;
    /** At most this many values per file: a secret file holds a few, a planted one could hold millions. */
    static final int MAX_VALUES_PER_FILE = 200;
    private static final Pattern SECRET_SHAPED = Pattern.compile("[^\\s\"'`()\\[\\]{}<>;]{" + MIN_CHARS + "," + MAX_CHARS + "}");
    /** A secret file larger than this is read only this far: key files and .env files are small. */
    private static final int MAX_FILE_BYTES = 256 * 1024;
    private static final Pattern ASSIGNMENT =
            Pattern.compile("^(?:export\\s+)?[A-Za-z_][A-Za-z0-9_.\\-]*\\s*[=:]\\s*(.*)$");

    /** A secret file's values as of one look at it. */
    private record Known(Object stamp, List<String> values) {
    }

    private final Workspace workspace;
    private final Map<String, String> environment;
    private final Map<Path, Known> files = new HashMap<>();
    /** Value to its label, longest value first, so a value inside a longer one never splits it. */
    private volatile List<Map.Entry<String, String>> values = List.of();
    private volatile boolean looked;

    /**
     * @param workspace the session's workspace
     * @param environment the removed variables and their values
     */
    Redactor(Workspace workspace, Map<String, String> environment) {
        this.workspace = workspace;
        this.environment = environment;
    }

    /** Looks at the secret files again (cheap when nothing changed); call before a tool's result is read. */
    synchronized void refresh() {
        Map<String, String> all = new LinkedHashMap<>();
        environment.forEach((name, value) -> add(all, value, "$" + name));
        List<Path> secrets;
        // the look runs to its end even on an interrupted thread (a cancelled tool's last output is still
        // redacted, and a walk stops for an interrupt): the flag is set again afterwards
        boolean interrupted = Thread.interrupted();
        try {
            secrets = workspace.secretFiles();
        } catch (IOException e) {
            secrets = List.copyOf(files.keySet()); // keep what is known rather than nothing
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        Map<Path, Known> seen = new HashMap<>();
        for (Path file : secrets) {
            Known known = read(workspace, file, files.get(file));
            seen.put(file, known);
            String label = workspace.relativize(file);
            known.values().forEach(value -> add(all, value, label));
        }
        files.clear();
        files.putAll(seen);
        List<Map.Entry<String, String>> sorted = new ArrayList<>(all.entrySet());
        sorted.sort(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length()).reversed());
        values = List.copyOf(sorted);
        looked = true;
    }

    private static void add(Map<String, String> all, String value, String label) {
        String trimmed = value.strip();
        if (trimmed.length() >= MIN_CHARS) {
            all.putIfAbsent(trimmed, label);
        }
    }

    /** Whether a secret file's value looks like a secret rather than like text or code. */
    static boolean secretShaped(String value) {
        return SECRET_SHAPED.matcher(value).matches();
    }

    private static Known read(Workspace workspace, Path file, Known before) {
        Object stamp;
        long size;
        try {
            // a link is followed (.env -> ~/secrets/app.env holds real values), but only to a regular
            // file with content: a pipe, or a kernel file such as /proc/kmsg (size 0), would block the read
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (!attributes.isRegularFile()) {
                return new Known("not a file", List.of());
            }
            size = attributes.size();
            stamp = List.of(size, attributes.lastModifiedTime(), String.valueOf(attributes.fileKey()));
        } catch (IOException gone) {
            return new Known("gone", List.of());
        }
        if (before != null && before.stamp().equals(stamp)) {
            return before;
        }
        List<byte[]> versions = new ArrayList<>();
        if (size > 0) {
            try (InputStream in = Files.newInputStream(file)) {
                versions.add(in.readNBytes(MAX_FILE_BYTES));
            } catch (IOException unreadable) {
                // what git recorded may still be known
            }
        }
        // a tracked secret's committed value outlives a local edit in git diff and git log -p
        versions.addAll(workspace.recordedContents(file, MAX_FILE_BYTES));
        List<String> values = new ArrayList<>();
        for (byte[] version : versions) {
            values(new String(version, StandardCharsets.UTF_8), values);
        }
        return new Known(stamp, values);
    }

    private static void values(String content, List<String> values) {
        for (String line : content.split("\r?\n")) {
            String text = line.strip();
            if (text.isEmpty() || text.startsWith("#") || text.startsWith("-----BEGIN") || text.startsWith("-----END")) {
                continue;
            }
            Matcher assignment = ASSIGNMENT.matcher(text);
            String value = assignment.matches() ? unquote(assignment.group(1).strip()) : text;
            if (secretShaped(value) && values.size() < MAX_VALUES_PER_FILE && !values.contains(value)) {
                values.add(value);
            }
        }
    }

    private static String unquote(String value) {
        if (value.length() >= 2 && (value.charAt(0) == '"' || value.charAt(0) == '\'')
                && value.charAt(value.length() - 1) == value.charAt(0)) {
            return value.substring(1, value.length() - 1);
        }
        return value;
    }

    /** Whether the secret files were looked at at least once. */
    boolean looked() {
        return looked;
    }

    /** The text with every known value replaced by {@code [redacted: LABEL]}. */
    String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        if (!looked) {
            refresh();
        }
        String result = text;
        for (Map.Entry<String, String> known : values) {
            if (result.contains(known.getKey())) {
                result = result.replace(known.getKey(), "[redacted: " + known.getValue() + "]");
            }
        }
        return result;
    }
}
