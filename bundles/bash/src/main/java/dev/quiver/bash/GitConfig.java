package dev.quiver.bash;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The aliases git would read from its configuration files: the system's, the user's
 * ({@code $XDG_CONFIG_HOME/git/config}, {@code ~/.gitconfig}) and the repository's, later files
 * overriding earlier ones, {@code include.path} and {@code includeIf.*.path} followed (every
 * condition counted as true: an alias that does not apply only makes git say it knows no such
 * command). A repository's files may come from anyone, so reading is bounded: regular files only, at
 * most {@link #MAX_BYTES} each, {@link #MAX_FILES} files, includes {@link #MAX_DEPTH} deep.
 */
final class GitConfig {

    static final int MAX_BYTES = 256 * 1024;
    static final int MAX_FILES = 32;
    static final int MAX_DEPTH = 10;

    private GitConfig() {
    }

    /** Alias name (lower case, as git compares them) to its value. */
    static Map<String, String> aliases(ShellWorkspace where) {
        Map<String, String> aliases = new HashMap<>();
        if (where == null) {
            return aliases;
        }
        Optional<Path> home = where.home();
        int[] files = {0};
        read(Path.of("/etc/gitconfig"), home, aliases, 0, files);
        String xdg = System.getenv("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isEmpty()) {
            read(Path.of(xdg, "git", "config"), home, aliases, 0, files);
        } else {
            home.ifPresent(h -> read(h.resolve(".config/git/config"), home, aliases, 0, files));
        }
        home.ifPresent(h -> read(h.resolve(".gitconfig"), home, aliases, 0, files));
        where.gitDir().ifPresent(git -> {
            // a linked worktree's folder names the repository's common folder, which holds the config
            Path common = git;
            try {
                Path commondir = git.resolve("commondir");
                if (Files.isRegularFile(commondir) && Files.size(commondir) < 4096) {
                    common = git.resolve(Files.readString(commondir).strip()).normalize();
                }
            } catch (IOException | InvalidPathException unreadable) {
                // no common folder: the worktree's own
            }
            read(common.resolve("config"), home, aliases, 0, files);
            read(git.resolve("config.worktree"), home, aliases, 0, files);
        });
        return aliases;
    }

    private static void read(Path file, Optional<Path> home, Map<String, String> aliases, int depth, int[] files) {
        if (depth > MAX_DEPTH || files[0] >= MAX_FILES || !Files.isRegularFile(file)) {
            return;
        }
        files[0]++;
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES);
        } catch (IOException | RuntimeException unreadable) {
            return;
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        String section = "";
        int i = 0;
        int n = text.length();
        while (i < n) {
            // one logical line: a section header, a key with its value, a comment or nothing
            while (i < n && (text.charAt(i) == ' ' || text.charAt(i) == '\t' || text.charAt(i) == '\n' || text.charAt(i) == '\r')) {
                i++;
            }
            if (i >= n) {
                break;
            }
            char c = text.charAt(i);
            if (c == '#' || c == ';') {
                i = endOfLine(text, i);
            } else if (c == '[') {
                int close = text.indexOf(']', i);
                if (close < 0) {
                    return;
                }
                section = sectionName(text.substring(i + 1, close));
                i = close + 1;
            } else {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '-')) {
                    i++;
                }
                String key = text.substring(start, i).toLowerCase(Locale.ROOT);
                while (i < n && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
                    i++;
                }
                String value = "true";
                if (i < n && text.charAt(i) == '=') {
                    StringBuilder v = new StringBuilder();
                    i = value(text, i + 1, v);
                    value = v.toString();
                } else {
                    i = endOfLine(text, i);
                }
                if (key.isEmpty()) {
                    i = Math.max(i, start + 1);
                    continue;
                }
                if (section.equals("alias")) {
                    aliases.put(key, value);
                } else if (key.equals("path") && (section.equals("include") || section.startsWith("includeif"))) {
                    include(file, value, home).ifPresent(p -> read(p, home, aliases, depth + 1, files));
                }
            }
        }
    }

    /** {@code alias}, {@code include}, {@code includeif.<condition>}: section names compare in lower case. */
    private static String sectionName(String header) {
        int quote = header.indexOf('"');
        String name = (quote < 0 ? header : header.substring(0, quote)).strip().toLowerCase(Locale.ROOT);
        return quote < 0 ? name : name + "." + header.substring(quote + 1).replace("\"", "");
    }

    private static Optional<Path> include(Path from, String path, Optional<Path> home) {
        try {
            if (path.startsWith("~/")) {
                return home.map(h -> h.resolve(path.substring(2)));
            }
            Path p = Path.of(path);
            return Optional.of(p.isAbsolute() ? p : from.getParent().resolve(p));
        } catch (InvalidPathException | NullPointerException unusable) {
            return Optional.empty();
        }
    }

    private static int endOfLine(String text, int i) {
        int nl = text.indexOf('\n', i);
        return nl < 0 ? text.length() : nl + 1;
    }

    /** A value up to the end of its line: quotes, escapes, comments and backslash-newline as git reads them. */
    private static int value(String text, int i, StringBuilder out) {
        boolean quoted = false;
        int kept = 0; // length without trailing blanks outside quotes
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\n') {
                i++;
                break;
            }
            if (!quoted && (c == '#' || c == ';')) {
                i = endOfLine(text, i);
                break;
            }
            if (c == '"') {
                quoted = !quoted;
                i++;
                kept = out.length();
                continue;
            }
            if (c == '\\' && i + 1 < n) {
                char d = text.charAt(i + 1);
                i += 2;
                if (d == '\n') {
                    continue;
                }
                out.append(switch (d) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    case 'b' -> '\b';
                    default -> d;
                });
                kept = out.length();
                continue;
            }
            if (c != '\r') {
                out.append(c);
                if (quoted || (c != ' ' && c != '\t')) {
                    kept = out.length();
                }
            }
            i++;
        }
        out.setLength(kept);
        String stripped = out.toString().stripLeading();
        out.setLength(0);
        out.append(stripped);
        return i;
    }
}
