package dev.quiver.workspace;

import java.util.function.Predicate;

/**
 * The globs most searches use — literal text, {@code *} within a segment, and {@code **} as a whole
 * segment ({@code *.java}, {@code **}{@code /*.ts}, {@code src/**}{@code /test/*.java}) — matched
 * against a relative file path directly, with the result JGit's {@code FastIgnoreRule} gives (the
 * tests compare the two on generated patterns and paths). A glob with anything else ({@code ?},
 * brackets, escapes, a leading or trailing {@code /}, {@code **} inside a segment, trailing
 * whitespace) is left to JGit.
 *
 * <p>gitignore's rules, as JGit applies them to files: a pattern without {@code /} matches the file's
 * name at any depth; one with a {@code /} matches the whole path from the root; {@code *} never
 * crosses a {@code /}; a leading or inner {@code **} segment stands for any number of folders, none
 * included, and a trailing one for one or more path segments.
 */
final class SimpleGlob implements Predicate<String> {

    /** Pattern segments; {@code null} stands for {@code **}. */
    private final Segment[] segments;
    private final boolean nameOnly;

    private SimpleGlob(Segment[] segments, boolean nameOnly) {
        this.segments = segments;
        this.nameOnly = nameOnly;
    }

    /** The matcher for a glob in the simple shape, or null when JGit must match it. */
    static SimpleGlob of(String glob) {
        if (glob.isEmpty() || glob.startsWith("/") || glob.endsWith("/") || glob.contains("//")
                || Character.isWhitespace(glob.charAt(glob.length() - 1))) {
            return null; // JGit drops trailing spaces, as git does
        }
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '?' || c == '[' || c == ']' || c == '\\' || c == '!' || c == '#') {
                return null;
            }
        }
        String[] parts = glob.split("/", -1);
        Segment[] segments = new Segment[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.equals("**")) {
                segments[i] = null;
            } else if (part.contains("**")) {
                return null;
            } else {
                segments[i] = new Segment(part.split("\\*", -1));
            }
        }
        if (segments.length == 1) {
            // no slash: the file's name, at any depth (a lone ** is left to JGit)
            return segments[0] == null ? null : new SimpleGlob(segments, true);
        }
        if (segments.length == 2 && segments[0] == null && segments[1] != null) {
            // **/name is the name at any depth too
            return new SimpleGlob(new Segment[] {segments[1]}, true);
        }
        return new SimpleGlob(segments, false);
    }

    @Override
    public boolean test(String path) {
        if (nameOnly) {
            return segments[0].matches(path, path.lastIndexOf('/') + 1, path.length());
        }
        return matches(path, 0, 0);
    }

    /** Whether the path from {@code from} matches the pattern segments from {@code index}. */
    private boolean matches(String path, int from, int index) {
        if (index == segments.length) {
            return from > path.length();
        }
        Segment segment = segments[index];
        if (segment == null) {
            if (index == segments.length - 1) {
                return from < path.length(); // a trailing ** is one or more segments
            }
            // a leading or inner ** is any number of folders, none included
            for (int start = from;;) {
                if (matches(path, start, index + 1)) {
                    return true;
                }
                int slash = path.indexOf('/', start);
                if (slash < 0) {
                    return false;
                }
                start = slash + 1;
            }
        }
        if (from > path.length()) {
            return false;
        }
        int slash = path.indexOf('/', from);
        int end = slash < 0 ? path.length() : slash;
        return segment.matches(path, from, end) && matches(path, end + 1, index + 1);
    }

    /** One segment: literal pieces with a {@code *} between each two, which spans no {@code /}. */
    private record Segment(String[] pieces) {

        /** Whether {@code path[from, to)}, one segment of a path, matches. */
        boolean matches(String path, int from, int to) {
            if (pieces.length == 1) {
                return to - from == pieces[0].length() && path.startsWith(pieces[0], from);
            }
            String first = pieces[0];
            String last = pieces[pieces.length - 1];
            if (to - from < first.length() + last.length() || !path.startsWith(first, from)
                    || !path.startsWith(last, to - last.length())) {
                return false;
            }
            int at = from + first.length();
            int limit = to - last.length();
            for (int i = 1; i < pieces.length - 1; i++) {
                int found = path.indexOf(pieces[i], at);
                if (found < 0 || found + pieces[i].length() > limit) {
                    return false;
                }
                at = found + pieces[i].length();
            }
            return true;
        }
    }
}
