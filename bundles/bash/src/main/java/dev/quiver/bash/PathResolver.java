package dev.quiver.bash;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a path word leads, read as the operating system will read it when the command runs: braces
 * and a leading {@code ~} expanded as bash does, globs listed against the tree (at most
 * {@link #MAX_ENTRIES} entries), every symbolic link on the way followed and {@code ..} taken after
 * it (so {@code build/l/..} is the parent of what {@code l} points to, not {@code build}). The last
 * component is followed only when asked ({@code rm} removes a link itself, {@code rm l/} what it
 * points to). A component that does not exist yet is kept as text; a {@code ..} after one cannot be
 * known and makes the whole word unknown.
 */
final class PathResolver {

    /** Entries a word's globs may list before the word counts as unknown. */
    static final int MAX_ENTRIES = 10_000;
    /** Links followed for one word, as the kernel's own limit. */
    static final int MAX_HOPS = 40;
    /** Words one brace expansion may give. */
    private static final int MAX_BRACE_WORDS = 64;

    /**
     * One place a word leads to.
     *
     * @param path absolute, links resolved as far as the path exists
     * @param exists whether it exists now (a link counts, dangling or not)
     * @param followed whether a component that is followed (any but the last, or the last with a
     *     trailing slash) lies on the way: such a path changes if an earlier command makes that folder a link
     */
    record Target(Path path, boolean exists, boolean followed) {
    }

    /** The places a word leads to, or why that cannot be known. */
    record Resolution(List<Target> targets, String unknown) {
        static Resolution unknown(String why) {
            return new Resolution(List.of(), why);
        }

        boolean known() {
            return unknown == null;
        }
    }

    private PathResolver() {
    }

    /**
     * Resolves a literal word used as a path by a command running in {@code cwd}.
     *
     * @param followLast follow a link in the last component (a write does; {@code rm} does not)
     */
    static Resolution resolve(String word, Path cwd, Optional<Path> home, boolean followLast) {
        return resolve(word, cwd, home, followLast, false);
    }

    /**
     * As {@link #resolve(String, Path, Optional, boolean)}; with {@code noClimb}, a {@code ..} after a
     * name makes the word unknown, existing folder or not: an earlier command of the same line can
     * make that name a link, so only a path that never climbs back is known before the line runs.
     */
    static Resolution resolve(String word, Path cwd, Optional<Path> home, boolean followLast, boolean noClimb) {
        if (word.isEmpty()) {
            return Resolution.unknown("an empty path");
        }
        String text = word;
        if (text.startsWith("~")) {
            int slash = text.indexOf('/');
            String user = text.substring(1, slash < 0 ? text.length() : slash);
            if (!user.isEmpty()) {
                return Resolution.unknown("another user's home folder (" + ShellText.abbreviate(word, 40) + ")");
            }
            if (home.isEmpty()) {
                return Resolution.unknown("the home folder, which is not known here");
            }
            text = home.get() + (slash < 0 ? "" : text.substring(slash));
        }
        List<String> words = new ArrayList<>();
        if (!braces(text, words, 0)) {
            return Resolution.unknown("a brace expansion of more than " + MAX_BRACE_WORDS + " words");
        }
        Walk walk = new Walk();
        for (String w : words) {
            if (hasExtglob(w)) {
                return Resolution.unknown("an extended glob (" + ShellText.abbreviate(w, 40) + ")");
            }
            boolean trailing = w.endsWith("/");
            List<String> parts = List.of(w.split("/"));
            if (noClimb && climbsAfterName(parts)) {
                return Resolution.unknown("a .. after a folder name (" + ShellText.abbreviate(w, 60)
                        + "), which a link made by the same line could redirect");
            }
            String why = walk.from(w.startsWith("/") ? Path.of("/") : cwd, parts, 0, -1, false, followLast || trailing, 0);
            if (why != null) {
                return Resolution.unknown(why);
            }
        }
        return new Resolution(List.copyOf(walk.out), null);
    }

    /** One word's walk: the places found so far and the entries listed. */
    private static final class Walk {
        final List<Target> out = new ArrayList<>();
        int listed;

        /**
         * Walks {@code parts[i..]} from {@code at}; null when done, else why the word cannot be known.
         * Part {@code literalAt} is a name a glob matched, never a glob again.
         */
        String from(Path at, List<String> parts, int i, int literalAt, boolean followed, boolean followLast, int hops) {
            Path current = at;
            boolean gone = false;
            boolean through = followed;
            for (int k = i; k < parts.size(); k++) {
                String part = parts.get(k);
                boolean last = lastName(parts, k);
                if (part.isEmpty() || part.equals(".")) {
                    continue;
                }
                if (part.equals("..")) {
                    if (gone) {
                        return "a .. after a folder that does not exist yet";
                    }
                    current = current.getParent() == null ? current : current.getParent();
                    continue;
                }
                if (!gone && k != literalAt && isGlob(part)) {
                    List<String> matches = new ArrayList<>();
                    String why = list(current, part, matches);
                    if (why != null) {
                        return why;
                    }
                    if (!matches.isEmpty()) {
                        for (String match : matches) {
                            List<String> rest = new ArrayList<>(parts);
                            rest.set(k, match);
                            why = from(current, rest, k, k, through, followLast, hops);
                            if (why != null) {
                                return why;
                            }
                        }
                        return null;
                    }
                    // no match: bash passes the word on as written
                }
                Path next;
                try {
                    next = current.resolve(part);
                } catch (InvalidPathException e) {
                    return "a path the file system cannot hold";
                }
                boolean follow = !last || followLast;
                through |= follow;
                if (gone) {
                    current = next;
                    continue;
                }
                BasicFileAttributes attributes = attributes(next);
                if (attributes == null) {
                    gone = true;
                    current = next;
                    continue;
                }
                if (attributes.isSymbolicLink() && follow) {
                    if (hops >= MAX_HOPS) {
                        return "more than " + MAX_HOPS + " symbolic links";
                    }
                    Path target;
                    try {
                        target = Files.readSymbolicLink(next);
                    } catch (IOException | UnsupportedOperationException e) {
                        return "a symbolic link that cannot be read";
                    }
                    List<String> rest = new ArrayList<>(List.of(target.toString().split("/")));
                    rest.addAll(parts.subList(k + 1, parts.size()));
                    // the link's own text is walked from its folder, then the rest of the word after it
                    return from(target.isAbsolute() ? Path.of("/") : current, rest, 0, -1, true, followLast, hops + 1);
                }
                current = next;
            }
            out.add(new Target(current, !gone, through));
            return null;
        }

        private String list(Path folder, String glob, List<String> matches) {
            if (!Files.isDirectory(folder)) {
                return null;
            }
            Pattern pattern = globPattern(glob);
            boolean hidden = glob.startsWith(".");
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
                for (Path entry : entries) {
                    if (++listed > MAX_ENTRIES) {
                        return "a glob over more than " + MAX_ENTRIES + " entries";
                    }
                    String name = entry.getFileName().toString();
                    if ((hidden || !name.startsWith(".")) && pattern.matcher(name).matches()) {
                        matches.add(name);
                    }
                }
            } catch (IOException | RuntimeException e) {
                return "a folder that cannot be listed";
            }
            return null;
        }
    }

    private static boolean climbsAfterName(List<String> parts) {
        boolean named = false;
        for (String part : parts) {
            if (part.equals("..") && named) {
                return true;
            }
            named |= !part.isEmpty() && !part.equals(".") && !part.equals("..");
        }
        return false;
    }

    /** Whether part {@code k} is the word's last name (only empty parts, from trailing slashes, follow it). */
    private static boolean lastName(List<String> parts, int k) {
        for (int j = k + 1; j < parts.size(); j++) {
            if (!parts.get(j).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private static BasicFileAttributes attributes(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static boolean isGlob(String s) {
        return s.indexOf('*') >= 0 || s.indexOf('?') >= 0 || s.indexOf('[') >= 0;
    }

    /** {@code ?(..)}, {@code *(..)}, {@code +(..)}, {@code @(..)}, {@code !(..)}: bash's extglob, which a login shell may enable. */
    private static boolean hasExtglob(String s) {
        for (int i = 0; i + 1 < s.length(); i++) {
            if (s.charAt(i + 1) == '(' && "?*+@!".indexOf(s.charAt(i)) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** One path component's glob as a regular expression: {@code *}, {@code ?} and {@code [...]} classes. */
    static Pattern globPattern(String glob) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*') {
                b.append(".*");
            } else if (c == '?') {
                b.append('.');
            } else if (c == '[') {
                int close = glob.indexOf(']', i + 2);
                if (close < 0) {
                    b.append("\\[");
                    continue;
                }
                String body = glob.substring(i + 1, close);
                boolean negated = body.startsWith("!") || body.startsWith("^");
                b.append('[').append(negated ? "^" : "");
                for (char ch : (negated ? body.substring(1) : body).toCharArray()) {
                    b.append(ch == '-' ? "-" : Character.isLetterOrDigit(ch) ? String.valueOf(ch) : "\\" + ch);
                }
                b.append(']');
                i = close;
            } else {
                b.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(b.toString(), Pattern.DOTALL);
    }

    /** Brace expansion ({@code {a,b}}); false when it would give more than {@link #MAX_BRACE_WORDS} words. */
    static boolean braces(String s, List<String> out, int level) {
        int open = -1;
        int depth = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{') {
                if (depth++ == 0) {
                    open = i;
                }
            } else if (c == '}' && depth > 0 && --depth == 0) {
                List<String> alternatives = new ArrayList<>();
                int d = 0;
                int from = open + 1;
                for (int k = open + 1; k < i; k++) {
                    char ch = s.charAt(k);
                    if (ch == '{') {
                        d++;
                    } else if (ch == '}') {
                        d--;
                    } else if (ch == ',' && d == 0) {
                        alternatives.add(s.substring(from, k));
                        from = k + 1;
                    }
                }
                if (alternatives.isEmpty()) {
                    continue; // {x} without a comma is text
                }
                alternatives.add(s.substring(from, i));
                String prefix = s.substring(0, open);
                String suffix = s.substring(i + 1);
                for (String alt : alternatives) {
                    if (level > 8 || out.size() > MAX_BRACE_WORDS || !braces(prefix + alt + suffix, out, level + 1)) {
                        return false;
                    }
                }
                return out.size() <= MAX_BRACE_WORDS;
            }
        }
        out.add(s);
        return out.size() <= MAX_BRACE_WORDS;
    }
}
