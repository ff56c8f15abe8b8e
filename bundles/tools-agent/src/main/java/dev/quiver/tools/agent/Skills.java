package dev.quiver.tools.agent;

import dev.quiver.api.Workspace;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The skills of a session: folders holding a {@code SKILL.md} whose front matter names the skill and
 * says when to use it, found in the user's folder and in the workspace ({@code .quiver/skills/}, and
 * {@code .claude/skills/} for compatibility). They are looked for again at every step, so a skill added
 * mid-session is found at the next one. On a name found twice the first wins, in that order: a
 * repository cannot shadow the user's own skill.
 *
 * <p>The front matter is read by a strict, minimal reader rather than a YAML library: top-level
 * {@code key: value} lines only (a value may be quoted, or continued on indented lines, as with
 * {@code >} or {@code |}), within the first {@value #MAX_FRONT_MATTER} characters. Anything else —
 * nested maps, lists, anchors — makes the skill fail to load with a problem that says which line, so a
 * malformed or enormous header can neither hang the step nor be half understood.
 */
final class Skills {

    /** Where a skill was found. */
    enum Origin {
        USER, WORKSPACE
    }

    /** A skill: its name and description from the front matter, its file, where it was found. */
    record Skill(String name, String description, Path file, String shownPath, Origin origin) {
    }

    /** The skills found, in precedence order, and why others were skipped. */
    record Found(List<Skill> skills, List<String> problems) {
    }

    /** The workspace's skill folders, relative to its root, in precedence order. */
    static final List<String> WORKSPACE_FOLDERS = List.of(".quiver/skills", ".claude/skills");
    /** Folders looked at in one skills folder; the rest are skipped with a problem. */
    static final int MAX_FOLDERS = 200;
    /** Bytes a {@code SKILL.md} may have. */
    static final int MAX_FILE = 64 * 1024;
    /** Characters of front matter read before the closing {@code ---} must have come. */
    static final int MAX_FRONT_MATTER = 4096;
    /** Characters a description may have. */
    static final int MAX_DESCRIPTION = 1024;
    private static final String NAME = "[a-z0-9][a-z0-9-]{0,63}";

    private Skills() {
    }

    /**
     * The skills of the user's folder (when there is one) and the workspace.
     *
     * @param userFolder the user's skills folder, whose links are followed: it is the user's own
     * @param workspace the workspace's root, whose links are not: a skill there stays inside it
     */
    static Found find(Optional<Path> userFolder, Path workspace) {
        Map<String, Skill> byName = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        userFolder.ifPresent(folder -> scan(folder, folder.toString(), Origin.USER, null, byName, problems));
        for (String relative : WORKSPACE_FOLDERS) {
            scan(workspace.resolve(relative), relative, Origin.WORKSPACE, workspace, byName, problems);
        }
        return new Found(List.copyOf(byName.values()), List.copyOf(problems));
    }

    /** The user's skills folder: {@code $XDG_CONFIG_HOME/quiver/skills}, else {@code ~/.config/quiver/skills}. */
    static Optional<Path> userFolder(Map<String, String> environment) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Optional.of(Path.of(xdg, "quiver", "skills"));
        }
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        return home == null || home.isBlank() ? Optional.empty() : Optional.of(Path.of(home, ".config", "quiver", "skills"));
    }

    /** Adds the skills of one folder; {@code jail} is the root a workspace folder must stay in, else null. */
    private static void scan(Path folder, String shown, Origin origin, Path jail, Map<String, Skill> byName,
            List<String> problems) {
        if (!Files.isDirectory(folder) || (jail != null && !inside(folder, jail))) {
            if (jail != null && Files.exists(folder) && !inside(folder, jail)) {
                problems.add(shown + ": leads outside the workspace (a link), so its skills are not read");
            }
            return;
        }
        TreeSet<Path> entries = new TreeSet<>();
        int skipped = 0;
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder)) {
            for (Path entry : stream) {
                // the names are sorted so the same folders are kept every step; the count stops a huge folder
                entries.add(entry);
                if (entries.size() > MAX_FOLDERS) {
                    entries.pollLast();
                    skipped++;
                }
            }
        } catch (IOException | RuntimeException e) {
            problems.add(shown + ": cannot be listed (" + e.getMessage() + ")");
            return;
        }
        if (skipped > 0) {
            problems.add(shown + ": holds more than " + MAX_FOLDERS + " entries; " + skipped + " were not looked at");
        }
        LinkOption[] links = jail == null ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
        for (Path entry : entries) {
            String where = shown + "/" + entry.getFileName();
            Path file = entry.resolve("SKILL.md");
            if (!Files.isDirectory(entry, links)) {
                if (Files.isSymbolicLink(entry)) {
                    problems.add(where + ": is a link, which the workspace's skills may not be");
                }
                continue;
            }
            if (!Files.exists(file, links)) {
                continue;
            }
            try {
                Skill skill = read(file, where + "/SKILL.md", origin, links);
                Skill first = byName.putIfAbsent(skill.name(), skill);
                if (first != null) {
                    problems.add(where + ": the name '" + skill.name() + "' is already " + first.shownPath() + "'s");
                }
            } catch (SkillException e) {
                problems.add(where + "/SKILL.md: " + e.getMessage());
            }
        }
    }

    private static boolean inside(Path folder, Path jail) {
        try {
            return folder.toRealPath().startsWith(jail.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /** Why a skill could not be read, for the model and the user. */
    static final class SkillException extends Exception {
        SkillException(String message) {
            super(message);
        }
    }

    /** One {@code SKILL.md}'s front matter. */
    static Skill read(Path file, String shown, Origin origin, LinkOption... links) throws SkillException {
        String text = text(file, links);
        Map<String, String> front = frontMatter(text);
        String name = front.getOrDefault("name", "");
        if (!name.matches(NAME)) {
            throw new SkillException(name.isEmpty() ? "the front matter has no name"
                    : "the name '" + cut(name, 80) + "' is not lower-case letters, digits and hyphens (at most 64)");
        }
        String description = NoteStore.oneLine(front.getOrDefault("description", ""));
        if (description.isEmpty()) {
            throw new SkillException("the front matter has no description; say in one line when to use the skill");
        }
        if (description.length() > MAX_DESCRIPTION) {
            throw new SkillException("the description has " + description.length() + " characters; keep it to "
                    + MAX_DESCRIPTION);
        }
        return new Skill(name, description, file, shown, origin);
    }

    /**
     * The instructions after the front matter. A workspace's skill is read through the workspace's jail
     * ({@link Workspace#openRead}), so a folder swapped for a link since it was listed cannot lead out.
     */
    static String body(Skill skill, Workspace workspace) throws SkillException {
        String text = skill.origin() == Origin.WORKSPACE
                ? text(skill.file(), () -> Channels.newInputStream(workspace.openRead(skill.file())),
                        LinkOption.NOFOLLOW_LINKS)
                : text(skill.file(), () -> Files.newInputStream(skill.file()));
        frontMatter(text);
        int end = text.indexOf("\n---", 3);
        int after = text.indexOf('\n', end + 4);
        return after < 0 ? "" : text.substring(after + 1).strip();
    }

    /** Opens a file to read. */
    private interface Opener {
        InputStream open() throws IOException;
    }

    private static String text(Path file, LinkOption... links) throws SkillException {
        return text(file, () -> Files.newInputStream(file, links), links);
    }

    /** The file as strict UTF-8 with {@code \n} line ends; a link in the workspace, a big or binary file is refused. */
    private static String text(Path file, Opener opener, LinkOption... links) throws SkillException {
        try {
            if (!Files.isRegularFile(file, links)) {
                throw new SkillException(Files.isSymbolicLink(file) ? "is a link, which a workspace's SKILL.md may not be"
                        : "is not a plain file");
            }
            long size = Files.size(file);
            byte[] bytes = new byte[0];
            if (size <= MAX_FILE) {
                try (InputStream in = opener.open()) {
                    bytes = in.readNBytes(MAX_FILE + 1);
                }
            }
            if (size > MAX_FILE || bytes.length > MAX_FILE) {
                throw new SkillException("has " + Math.max(size, bytes.length) + " bytes; a SKILL.md may have " + MAX_FILE);
            }
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            if (text.indexOf('\0') >= 0) {
                throw new SkillException("holds NUL bytes; a SKILL.md is text");
            }
            return text.replace("\r\n", "\n").replaceFirst("^\uFEFF", "");
        } catch (CharacterCodingException e) {
            throw new SkillException("is not UTF-8 text; save it as UTF-8");
        } catch (IOException e) {
            throw new SkillException("cannot be read (" + e.getMessage() + ")");
        }
    }

    /** The front matter's keys and values, under the strict rules of this class. */
    private static Map<String, String> frontMatter(String text) throws SkillException {
        if (!text.startsWith("---\n")) {
            throw new SkillException("does not start with front matter: a '---' line, 'name:' and 'description:' "
                    + "lines, and another '---' line");
        }
        int end = text.indexOf("\n---", 3);
        if (end < 0 || end > MAX_FRONT_MATTER || !(text.startsWith("\n", end + 4) || end + 4 == text.length())) {
            throw new SkillException("the front matter has no closing '---' line within its first " + MAX_FRONT_MATTER
                    + " characters");
        }
        Map<String, String> values = new LinkedHashMap<>();
        String key = null;
        String[] lines = text.substring(4, end + 1).split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (Character.isWhitespace(line.charAt(0)) && key != null) {
                values.merge(key, line.strip(), (before, more) -> before.isEmpty() ? more : before + " " + more);
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0 || !line.substring(0, colon).matches("[A-Za-z0-9_-]+")) {
                throw new SkillException("line " + (i + 2) + " of the front matter is not 'key: value'");
            }
            key = line.substring(0, colon);
            String value = line.substring(colon + 1).strip();
            if (value.matches("[>|][+-]?")) {
                value = ""; // a block: the indented lines that follow are the value
            } else if (value.length() >= 2 && (value.charAt(0) == '"' || value.charAt(0) == '\'')
                    && value.charAt(value.length() - 1) == value.charAt(0)) {
                value = value.substring(1, value.length() - 1);
            } else if (value.startsWith("[") || value.startsWith("{") || value.startsWith("&") || value.startsWith("*")) {
                throw new SkillException("line " + (i + 2) + " of the front matter is not a plain value (lists, maps, "
                        + "anchors and aliases are not read)");
            }
            if (values.put(key, value) != null) {
                throw new SkillException("the front matter sets '" + cut(key, 40) + "' twice");
            }
        }
        return values;
    }

    static String cut(String text, int max) {
        return text.length() > max ? text.substring(0, max) + "..." : text;
    }
}
