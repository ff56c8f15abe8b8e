package dev.quiver.tools.edit.plus;

import dev.quiver.api.FuzzyMatch;
import dev.quiver.api.Text;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies a {@link Patch} atomically. Every operation is validated and applied in memory first, against
 * the files as the earlier operations of the same patch left them; only when all of them succeed is
 * anything written, as one {@link Workspace#change}: all files or none, also across a crash.
 */
final class PatchApplier {

    /** A line of a file with its own terminator ({@code "\n"}, {@code "\r\n"}, {@code "\r"} or none at the end). */
    record FileLine(String text, String end) {
    }

    /** A file as the patch has left it so far; null content means deleted. */
    private static final class State {
        final boolean existedOnDisk;
        final byte[] original; // the bytes on disk before the patch, which it must still hold when written
        final Set<PosixFilePermission> permissions;
        List<FileLine> lines;
        Charset charset;
        boolean changed;
        Set<PosixFilePermission> newPermissions;

        State(boolean existedOnDisk, byte[] original, Set<PosixFilePermission> permissions) {
            this.existedOnDisk = existedOnDisk;
            this.original = original;
            this.permissions = permissions;
        }

        boolean exists() {
            return lines != null;
        }
    }

    /** What the summary says about each operation. */
    record Done(char code, String path, String detail) {
    }

    private final Workspace workspace;
    private final Map<Path, State> states = new LinkedHashMap<>();
    private final List<Done> done = new ArrayList<>();

    PatchApplier(Workspace workspace) {
        this.workspace = workspace;
    }

    /** Validates and applies the whole patch; returns the summary lines. */
    List<Done> apply(Patch patch) throws ToolException {
        for (Patch.Operation operation : patch.operations()) {
            try {
                switch (operation.kind()) {
                    case ADD -> add(operation);
                    case DELETE -> delete(operation);
                    case UPDATE -> update(operation);
                    default -> throw new IllegalStateException();
                }
            } catch (ToolException failed) {
                throw new ToolException("apply_patch failed on " + operation.describe() + " (patch line "
                        + operation.patchLine() + "): " + failed.getMessage() + "\nNo file was changed.");
            }
        }
        commit();
        return done;
    }

    // ----------------------------------------------------------------------------------- validation

    private Path resolve(String path) throws ToolException {
        if (path.startsWith("/") || path.startsWith("~") || path.matches("^[A-Za-z]:[\\\\/].*")) {
            throw new ToolException("'" + path + "' is not a relative path. Patch paths are relative to the "
                    + "workspace root, such as src/App.java.");
        }
        Path resolved = workspace.resolve(path);
        if (resolved.equals(workspace.root())) {
            throw new ToolException("'" + path + "' names the workspace root, not a file.");
        }
        return resolved;
    }

    /** The file's state as the patch has left it so far, read from disk the first time. */
    private State state(Path file) throws ToolException {
        State state = states.get(file);
        if (state != null) {
            return state;
        }
        if (Files.isDirectory(file)) {
            throw new ToolException(workspace.relativize(file) + " is a directory, not a file.");
        }
        boolean exists = Files.exists(file, LinkOption.NOFOLLOW_LINKS);
        byte[] original = null;
        Set<PosixFilePermission> permissions = null;
        if (exists) {
            try {
                try (java.nio.channels.SeekableByteChannel channel = workspace.openRead(file)) {
                    original = Entries.readAll(channel);
                }
                // not following a link: what is kept for an undo is this file's own mode, never another's
                PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS);
                permissions = view == null || Files.isSymbolicLink(file) ? null : view.readAttributes().permissions();
            } catch (IOException e) {
                throw new ToolException("Cannot read " + workspace.relativize(file) + ": " + Entries.reason(workspace, e), e);
            }
        }
        state = new State(exists, original, permissions);
        states.put(file, state);
        return state;
    }

    /** The current lines of an existing file, reading and checking it the first time it is touched. */
    private List<FileLine> linesOf(Path file, State state) throws ToolException {
        if (state.lines == null && state.existedOnDisk && !state.changed) {
            workspace.reads().requireFresh(file);
            Workspace.TextFile text = workspace.readText(file);
            state.lines = split(text.text());
            state.charset = text.charset();
        }
        return state.lines;
    }

    private void add(Patch.Operation operation) throws ToolException {
        Path file = resolve(operation.path());
        State state = state(file);
        if (state.existedOnDisk && !state.changed || state.exists()) {
            throw new ToolException(workspace.relativize(file) + " already exists. Use '*** Update File' to change it, "
                    + "or delete it first in the same patch.");
        }
        List<FileLine> lines = new ArrayList<>();
        for (String line : operation.added()) {
            lines.add(new FileLine(line, "\n"));
        }
        state.lines = lines;
        state.charset = StandardCharsets.UTF_8;
        state.changed = true;
        done.add(new Done('A', workspace.relativize(file), Entries.count(lines.size(), "line", "lines")));
    }

    private void delete(Patch.Operation operation) throws ToolException {
        Path file = resolve(operation.path());
        refuseLink(operation.path(), "delete", "delete_file");
        State state = state(file);
        boolean exists = state.changed ? state.exists() : state.existedOnDisk;
        if (!exists) {
            throw new ToolException("No such file: " + workspace.relativize(file));
        }
        state.lines = null;
        state.changed = true;
        done.add(new Done('D', workspace.relativize(file), ""));
    }

    private void update(Patch.Operation operation) throws ToolException {
        Path file = resolve(operation.path());
        String name = workspace.relativize(file);
        State state = state(file);
        boolean exists = state.changed ? state.exists() : state.existedOnDisk;
        if (!exists) {
            throw new ToolException("No such file: " + name + ". To create it, use '*** Add File'.");
        }
        List<FileLine> lines = new ArrayList<>(linesOf(file, state));
        String ending = dominantEnding(lines);
        int position = 0;
        List<String> tolerated = new ArrayList<>();
        for (Patch.Hunk hunk : operation.hunks()) {
            position = applyHunk(lines, hunk, ending, name, position, tolerated);
        }
        String detail = Entries.count(operation.hunks().size(), "hunk", "hunks")
                + (tolerated.isEmpty() ? "" : "; " + String.join("; ", tolerated));
        if (operation.moveTo() == null) {
            state.lines = lines;
            state.changed = true;
            done.add(new Done('M', name, detail));
            return;
        }
        Path target = resolve(operation.moveTo());
        refuseLink(operation.path(), "move", "move_file");
        if (!target.equals(file)) {
            State moved = state(target);
            boolean occupied = moved.changed ? moved.exists() : moved.existedOnDisk;
            if (occupied) {
                throw new ToolException("the move target " + workspace.relativize(target) + " already exists. Choose "
                        + "another name, or delete it first in the same patch.");
            }
            Entries.refuseExposingSecrets(workspace, file, target, "moving");
            moved.lines = lines;
            moved.charset = state.charset;
            moved.changed = true;
            moved.newPermissions = state.permissions;
            state.lines = null;
            state.changed = true;
        } else {
            state.lines = lines;
            state.changed = true;
        }
        done.add(new Done('R', name + " -> " + workspace.relativize(target), detail));
    }

    /**
     * Deleting or moving goes through a symbolic link to the file it points to, which would leave the
     * link dangling; the file tools that act on the link itself are named instead.
     */
    private void refuseLink(String path, String action, String tool) throws ToolException {
        if (Files.isSymbolicLink(Entries.entry(workspace, path))) {
            throw new ToolException(path + " is a symbolic link, and apply_patch does not " + action + " links (it "
                    + "would act on the file the link points to). Use " + tool + ", which acts on the link itself.");
        }
    }

    // -------------------------------------------------------------------------------------- hunks

    /**
     * Applies one hunk, searching from where the previous hunk of the file ended (and from the top when it is
     * not found there, for hunks given out of order); returns where this one ended. A hunk found only with a
     * tolerance adds a note to {@code tolerated}.
     */
    private int applyHunk(List<FileLine> lines, Patch.Hunk hunk, String ending, String name, int start,
            List<String> tolerated) throws ToolException {
        int cursor = start;
        if (!hunk.headers().isEmpty() && seek(lines, List.of(hunk.headers().get(0)), cursor, false, hunk, name) == null) {
            cursor = 0;
        }
        for (String header : hunk.headers()) {
            Located found = seek(lines, List.of(header), cursor, false, hunk, name);
            if (found == null) {
                throw new ToolException(hunk.describe() + ": the @@ line '" + header + "' is not in " + name
                        + (cursor > 0 ? " after line " + cursor : "") + ". "
                        + Text.closestRegion(join(lines), header));
            }
            cursor = found.at() + 1;
        }
        List<String> old = hunk.oldLines();
        Located found;
        if (old.isEmpty()) {
            // only additions: after the @@ lines, or at the end of the file
            found = new Located(hunk.headers().isEmpty() || hunk.endOfFile() ? lines.size() : cursor, null, "");
        } else {
            found = seek(lines, old, cursor, hunk.endOfFile(), hunk, name);
            if (found == null && hunk.headers().isEmpty() && cursor > 0) {
                cursor = 0;
                found = seek(lines, old, cursor, hunk.endOfFile(), hunk, name);
            }
            if (found == null && old.size() > 1 && old.get(old.size() - 1).isEmpty()) {
                // a trailing empty context line often stands for the file's final newline
                old = old.subList(0, old.size() - 1);
                found = seek(lines, old, cursor, hunk.endOfFile(), hunk, name);
            }
            if (found == null) {
                throw new ToolException(hunk.describe() + ": its context and removed lines are not in " + name
                        + (hunk.endOfFile() ? " at the end of the file" : "")
                        + (cursor > 0 ? " after line " + cursor : "") + ". Expected:\n"
                        + String.join("\n", old) + "\n" + Text.closestRegion(join(lines), String.join("\n", old)));
            }
        }
        if (!found.tolerated().isEmpty()) {
            tolerated.add("hunk " + hunk.number() + " matched with " + found.tolerated());
        }
        int at = found.at();
        List<FileLine> replacement = new ArrayList<>();
        int original = at;
        int matched = old.size();
        int consumed = 0;
        for (Patch.Line line : hunk.lines()) {
            if (line.kind() == '+') {
                String text = found.place() == null ? line.text() : found.place().reindent(line.text());
                replacement.add(new FileLine(text, ending));
            } else if (consumed < matched) {
                if (line.kind() == ' ') {
                    replacement.add(lines.get(original + consumed)); // the file's own text, not the patch's
                }
                consumed++;
            }
        }
        boolean replacesLast = at + matched == lines.size();
        boolean lastWasOpen = !lines.isEmpty() && lines.get(lines.size() - 1).end().isEmpty();
        List<FileLine> tail = new ArrayList<>(lines.subList(at + matched, lines.size()));
        lines.subList(at, lines.size()).clear();
        lines.addAll(replacement);
        lines.addAll(tail);
        // every line but the last ends in a terminator; a file that had no final newline keeps having none
        for (int i = 0; i < lines.size() - 1; i++) {
            FileLine line = lines.get(i);
            if (line.end().isEmpty()) {
                lines.set(i, new FileLine(line.text(), ending));
            }
        }
        if (lastWasOpen && replacesLast && !replacement.isEmpty()) {
            FileLine last = lines.get(lines.size() - 1);
            lines.set(lines.size() - 1, new FileLine(last.text(), ""));
        }
        return at + replacement.size();
    }

    /**
     * Where lines were found: the index, the match (null for a place no lines were sought for), and what
     * was tolerated (empty when exact).
     */
    record Located(int at, FuzzyMatch.Place place, String tolerated) {
    }

    /**
     * Where {@code wanted} is at or after {@code from} (only as the file's last lines for an end-of-file
     * hunk), at the strictest tolerance of {@link FuzzyMatch} that finds it: exactly, the first place; with
     * a tolerance, only a single place. Null when it is nowhere.
     *
     * @throws ToolException when a tolerance finds it in several places
     */
    static Located seek(List<FileLine> lines, List<String> wanted, int from, boolean endOfFile, Patch.Hunk hunk,
            String name) throws ToolException {
        int last = lines.size() - wanted.size();
        if (last < from) {
            return null;
        }
        List<String> texts = lines.stream().map(FileLine::text).toList();
        FuzzyMatch.Found found = FuzzyMatch.find(texts, wanted, true, endOfFile ? last : from, last,
                FuzzyMatch.Tolerance.WHITESPACE);
        if (found.places().isEmpty()) {
            return null;
        }
        FuzzyMatch.Place place = found.places().get(0);
        if (found.tolerance() == FuzzyMatch.Tolerance.EXACT) {
            return new Located(place.line(), place, "");
        }
        if (found.places().size() > 1) {
            throw new ToolException(hunk.describe() + ": " + (wanted.size() == 1 ? "the line '" + wanted.get(0) + "' is"
                    : "its context and removed lines are") + " not in " + name + " as written; with "
                    + found.tolerance().note() + (wanted.size() == 1 ? " it matches " : " they match ")
                    + found.places().size() + " places (lines "
                    + found.lines() + "), so which one is meant is unclear. Add context lines that make it unique.");
        }
        String note = found.tolerance().note();
        if (place.uneven()) {
            note += "; the indentation differed line by line, and added lines were mapped the same way";
        } else if (!place.shift().isEmpty()) {
            note += "; added lines re-indented to match";
        }
        return new Located(place.line(), place, note);
    }

    static List<FileLine> split(String text) {
        List<FileLine> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                lines.add(new FileLine(text.substring(start, i), "\n"));
                start = i + 1;
            } else if (c == '\r') {
                boolean crlf = i + 1 < text.length() && text.charAt(i + 1) == '\n';
                lines.add(new FileLine(text.substring(start, i), crlf ? "\r\n" : "\r"));
                if (crlf) {
                    i++;
                }
                start = i + 1;
            }
        }
        if (start < text.length()) {
            lines.add(new FileLine(text.substring(start), ""));
        }
        return lines;
    }

    /** The ending new lines get: the file's first line ending, {@code \n} for a file without any. */
    private static String dominantEnding(List<FileLine> lines) {
        for (FileLine line : lines) {
            if (!line.end().isEmpty()) {
                return line.end();
            }
        }
        return "\n";
    }

    private static String join(List<FileLine> lines) {
        StringBuilder out = new StringBuilder();
        for (FileLine line : lines) {
            out.append(line.text()).append(line.end());
        }
        return out.toString();
    }

    // ------------------------------------------------------------------------------------- commit

    /**
     * Writes the whole patch as one change of the workspace: every file is compared with what the patch
     * was made from right before it is replaced, and a crash half way is finished or rolled back by the
     * next start (see {@link Workspace#change}).
     */
    private void commit() throws ToolException {
        Workspace.Change change = workspace.change("apply_patch");
        for (Map.Entry<Path, State> entry : states.entrySet()) {
            State state = entry.getValue();
            if (!state.changed) {
                continue;
            }
            Path file = entry.getKey();
            if (state.exists()) {
                String name = workspace.relativize(file);
                try {
                    change.replace(file, state.existedOnDisk ? state.original : null,
                            Text.encode(join(state.lines), state.charset, name));
                } catch (ToolException e) {
                    throw new ToolException("apply_patch failed: " + e.getMessage() + "\nNo file was changed.");
                }
                if (!state.existedOnDisk && state.newPermissions != null) {
                    change.permissions(file, state.newPermissions);
                }
            } else if (state.existedOnDisk) {
                change.delete(file, state.original);
            }
        }
        try {
            change.commit();
        } catch (IOException e) {
            // the workspace's sentence names the file and says whether any file changed
            throw new ToolException("apply_patch failed: " + e.getMessage(), e);
        }
        for (Path file : states.keySet()) {
            if (states.get(file).exists()) {
                workspace.reads().wrote(file);
            }
        }
    }
}
