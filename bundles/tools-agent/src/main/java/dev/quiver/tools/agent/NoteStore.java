package dev.quiver.tools.agent;

import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The notes of {@code remember}, {@code recall} and {@code forget}. The agent's notes are lines
 * {@code - (KIND) TEXT} of {@value #FILE} in the workspace's state folder, newest last, plain Markdown the
 * user may edit (a line without a kind is a fact). How often each was recalled is kept beside it in
 * {@value #RECALLS}, one {@code ID<TAB>COUNT} line each, so the notes file stays the user's to read. A
 * note's id is a hash of its text, so it stays the same across sessions and edits of other lines. A
 * committed {@value #SHARED} is the repository's: read only in a trusted workspace, never written.
 */
final class NoteStore {

    /** The agent's notes, in the workspace's state folder (the kernel lists them in the prompt). */
    static final String FILE = "notes.md";
    /** How often each note was recalled, in the state folder. */
    static final String RECALLS = "notes-recalled.tsv";
    /** Notes committed with the workspace. */
    static final String SHARED = ".quiver/notes.md";
    /** The kinds a note may have; the first is the default. */
    static final List<String> KINDS = List.of("fact", "decision", "preference", "gotcha", "command");
    /** Characters one note may have. */
    static final int MAX_NOTE = 200;
    /** Notes kept in the file; the oldest go first. */
    static final int MAX_NOTES = 100;
    /** Bytes read of a notes file: its newest part. */
    private static final int MAX_READ = 256 * 1024;

    /** One note: its id, kind and text, and whether the repository's file holds it. */
    record Note(String id, String kind, String text, boolean repository) {
        String line() {
            return "- (" + kind + ") " + text;
        }
    }

    private final Path folder;

    private NoteStore(Path folder) {
        this.folder = folder;
    }

    /** The store of a call's workspace; a context that keeps no state has none. */
    static NoteStore of(ToolContext context) throws ToolException {
        return new NoteStore(context.stateFolder().orElseThrow(() -> new ToolException("This session keeps no "
                + "state between sessions, so notes cannot be saved or read here.")));
    }

    Path file() {
        return folder.resolve(FILE);
    }

    /** The agent's notes, oldest first. */
    List<Note> own() throws IOException {
        return parse(read(file()), false);
    }

    /** The repository's committed notes, oldest first; none unless the workspace is trusted. */
    static List<Note> repository(ToolContext context) throws IOException {
        if (!context.workspaceTrusted()) {
            return List.of();
        }
        return parse(read(context.workspace().root().resolve(SHARED)), true);
    }

    /** Replaces the agent's notes, oldest first. */
    void write(List<Note> notes) throws IOException {
        StringBuilder text = new StringBuilder();
        notes.forEach(note -> text.append(note.line()).append('\n'));
        replace(file(), text.toString());
    }

    /** Replaces the recall counts, by id. */
    void writeRecalls(Map<String, Integer> recalls) throws IOException {
        StringBuilder counts = new StringBuilder();
        recalls.forEach((id, count) -> counts.append(id).append('\t').append(count).append('\n'));
        replace(folder.resolve(RECALLS), counts.toString());
    }

    /** How often each note was recalled, by id. */
    Map<String, Integer> recalls() throws IOException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String line : read(folder.resolve(RECALLS)).split("\n")) {
            String[] fields = line.split("\t");
            if (fields.length == 2 && fields[0].matches("[0-9a-f]{8}") && fields[1].matches("[0-9]{1,9}")) {
                counts.put(fields[0], Integer.parseInt(fields[1]));
            }
        }
        return counts;
    }

    /** Refuses a notes file that is a link or a folder: writing through it would write elsewhere. */
    void checkPlain() throws ToolException {
        Path file = file();
        if (Files.isSymbolicLink(file) || Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolException(file + " is not a plain file; notes were not changed.");
        }
    }

    /** A note of {@code kind} (any case; a known kind or the default) with {@code text}. */
    static Note note(String kind, String text, boolean repository) {
        return new Note(id(text), kind, text, repository);
    }

    /** The note lines of a notes text: {@code - (KIND) TEXT} or {@code - TEXT}, other lines dropped. */
    private static List<Note> parse(String text, boolean repository) {
        List<Note> notes = new ArrayList<>();
        for (String line : text.split("\n")) {
            String body = line.strip();
            if (!body.startsWith("- ")) {
                continue;
            }
            body = oneLine(body.substring(2));
            String kind = KINDS.get(0);
            int close = body.indexOf(')');
            if (body.startsWith("(") && close > 1 && KINDS.contains(body.substring(1, close).toLowerCase(Locale.ROOT))) {
                kind = body.substring(1, close).toLowerCase(Locale.ROOT);
                body = body.substring(close + 1).strip();
            }
            if (!body.isEmpty()) {
                notes.add(note(kind, body.length() > MAX_NOTE ? body.substring(0, MAX_NOTE) : body, repository));
            }
        }
        return notes;
    }

    /** A plain file's newest part as text (bad bytes replaced); empty for a link or a missing file. */
    private static String read(Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return "";
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            long size = Files.size(file);
            if (size > MAX_READ) {
                in.skipNBytes(size - MAX_READ);
            }
            bytes = in.readNBytes(MAX_READ);
        }
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(bytes)).toString();
    }

    /** Replaces a file whole (a temporary file, then a rename), so a reader never sees half of it. */
    private static void replace(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Path temporary = Files.createTempFile(file.getParent(), ".notes", ".tmp");
        try {
            Files.writeString(temporary, content, StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** The first 8 hex digits of the text's SHA-256: short enough to type, stable across sessions. */
    static String id(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whitespace and control character runs, line breaks included, become one space. */
    static String oneLine(String text) {
        return text.replaceAll("[\\s\\p{Cntrl}]+", " ").strip();
    }
}
