package dev.quiver.cli.terminal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * {@code @path} completion as plain functions: finding the token under the cursor and ranking
 * workspace paths for it.
 *
 * <p>Two rules are decisions rather than mechanics. The {@code @} must start a word, so
 * {@code user@host} opens nothing. Prefix matches rank above substring matches: {@code @src/}
 * means "under {@code src/}", and a substring hit on {@code vendor/src/} would bury what the user
 * pointed at.
 */
public final class PathCompletion {

    private PathCompletion() {
    }

    /**
     * An {@code @} token: where it starts (the {@code @}) and what follows it up to the cursor.
     *
     * @param start the index of the {@code @}
     * @param query the text between the {@code @} and the cursor
     */
    public record Token(int start, String query) {
    }

    /** The {@code @} token the cursor is in, if the word under the cursor starts with {@code @}. */
    public static Optional<Token> at(CharSequence line, int cursor) {
        int start = cursor;
        while (start > 0 && !Character.isWhitespace(line.charAt(start - 1))) {
            start--;
        }
        if (start >= cursor || line.charAt(start) != '@') {
            return Optional.empty();
        }
        return Optional.of(new Token(start, line.subSequence(start + 1, cursor).toString()));
    }

    /**
     * The paths that match a query, best first: the files given and the folders above them (with a
     * trailing {@code /}). Ranks, in order: the path starts with the query; starts with it ignoring
     * case; the file or folder name starts with it; a later segment starts with it; it occurs anywhere.
     * Within a rank, shallower paths come first, folders before files, then name order. Paths that
     * do not contain the query at all are left out, and so is the query itself.
     *
     * @param files workspace-relative paths with {@code /} separators
     * @param limit how many to return at most
     */
    public static List<String> rank(String query, Collection<String> files, int limit) {
        return ranked(query, files, limit).stream().map(Ranked::path).toList();
    }

    /**
     * A path and its rank, 0 the best.
     *
     * @param path the path, folders with a trailing {@code /}
     * @param score 0 starts with the query, 1 starts with it ignoring case, 2 the name starts with
     *     it, 3 a later segment does, 4 it occurs anywhere
     */
    public record Ranked(String path, int score) {
    }

    /** {@link #rank} with each path's rank. */
    public static List<Ranked> ranked(String query, Collection<String> files, int limit) {
        Set<String> paths = new LinkedHashSet<>();
        for (String file : files) {
            int slash = file.indexOf('/');
            while (slash > 0) {
                paths.add(file.substring(0, slash + 1));
                slash = file.indexOf('/', slash + 1);
            }
            paths.add(file);
        }
        String lower = query.toLowerCase(Locale.ROOT);
        List<Scored> scored = new ArrayList<>();
        for (String path : paths) {
            int score = score(query, lower, path);
            if (score >= 0 && !path.equals(query)) {
                scored.add(new Scored(path, score, depth(path)));
            }
        }
        scored.sort(Comparator.comparingInt(Scored::score).thenComparingInt(Scored::depth)
                .thenComparing(s -> !s.path().endsWith("/"))
                .thenComparing(s -> s.path().toLowerCase(Locale.ROOT)).thenComparing(Scored::path));
        List<Ranked> ranked = new ArrayList<>(Math.min(limit, scored.size()));
        for (int i = 0; i < scored.size() && i < limit; i++) {
            ranked.add(new Ranked(scored.get(i).path(), scored.get(i).score()));
        }
        return ranked;
    }

    /** 0 best to 4; -1 when the path does not match. */
    static int score(String query, String lowerQuery, String path) {
        if (query.isEmpty()) {
            return 0;
        }
        if (path.startsWith(query)) {
            return 0;
        }
        String lower = path.toLowerCase(Locale.ROOT);
        if (lower.startsWith(lowerQuery)) {
            return 1;
        }
        String name = name(lower);
        if (name.startsWith(lowerQuery)) {
            return 2;
        }
        int from = 0;
        int slash;
        while ((slash = lower.indexOf('/', from)) >= 0 && slash + 1 < lower.length()) {
            if (lower.startsWith(lowerQuery, slash + 1)) {
                return 3;
            }
            from = slash + 1;
        }
        return lower.contains(lowerQuery) ? 4 : -1;
    }

    /** The last segment of a path, without a trailing slash. */
    private static String name(String path) {
        String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return trimmed.substring(trimmed.lastIndexOf('/') + 1);
    }

    private static int depth(String path) {
        int depth = 0;
        for (int i = 0; i < path.length() - 1; i++) {
            if (path.charAt(i) == '/') {
                depth++;
            }
        }
        return depth;
    }

    private record Scored(String path, int score, int depth) {
    }
}
