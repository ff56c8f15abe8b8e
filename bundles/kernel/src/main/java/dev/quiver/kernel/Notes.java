package dev.quiver.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The notes the {@code remember} tool keeps, one {@code - TEXT} line each, read again at every step so
 * that a note saved in one step, or in another session of the same workspace, is in the next system
 * prompt. The agent's own notes live in the workspace's state folder, outside the working tree; a
 * committed {@code .quiver/notes.md} (notes a team shares) is read too, but only in a trusted
 * workspace: a cloned repository's text never reaches the prompt as if the agent had noted it. Only
 * the newest are shown, newest last.
 */
final class Notes {

    /** The tool whose presence in a step brings the notes into its prompt. */
    static final String TOOL = "remember";
    /** The agent's notes, in the workspace's state folder. */
    static final String FILE = "notes.md";
    /** Notes committed with the workspace, read only when it is trusted. */
    static final String SHARED = ".quiver/notes.md";
    static final int MAX_SHOWN = 30;
    static final int MAX_CHARS = 3000;
    private static final int MAX_LINE = 200;
    private static final int MAX_READ = 256 * 1024;

    /** No notes at all. */
    static final Notes NONE = new Notes(Optional::empty, Optional::empty);

    private final Supplier<Optional<Path>> stateFolder;
    private final Supplier<Optional<String>> shared;

    /**
     * @param stateFolder the workspace's state folder, where the agent's notes are; asked when notes are read
     * @param shared the text of the workspace's shared notes as trusted ({@link Config#sharedNotes}), else empty
     */
    Notes(Supplier<Optional<Path>> stateFolder, Supplier<Optional<String>> shared) {
        this.stateFolder = stateFolder;
        this.shared = shared;
    }

    /** The notes a prompt shows: the repository's committed ones and the agent's own, each newest last. */
    record Shown(List<String> repository, List<String> own) {
        boolean isEmpty() {
            return repository.isEmpty() && own.isEmpty();
        }
    }

    /**
     * The newest notes as prompt lines ({@code - TEXT}), the agent's own counted first from the newest, then
     * the repository's; at most {@link #MAX_SHOWN} and {@link #MAX_CHARS} in all.
     */
    Shown newest() {
        List<String> shared = this.shared.get().map(Notes::lines).orElse(List.of());
        List<String> own = stateFolder.get().map(folder -> read(folder.resolve(FILE))).orElse(List.of());
        int[] budget = {MAX_SHOWN, MAX_CHARS};
        List<String> ownShown = newest(own, budget);
        return new Shown(newest(shared, budget), ownShown);
    }

    /** The newest of {@code notes} that fit in what is left of {@code budget} (lines, characters), newest last. */
    private static List<String> newest(List<String> notes, int[] budget) {
        List<String> shown = new ArrayList<>();
        for (int i = notes.size() - 1; i >= 0 && budget[0] > 0 && budget[1] >= notes.get(i).length() + 1; i--) {
            budget[0]--;
            budget[1] -= notes.get(i).length() + 1;
            shown.add(0, notes.get(i));
        }
        return shown;
    }

    /** One file's note lines; a link, a missing or unreadable file has none. */
    private static List<String> read(Path file) {
        List<String> notes = new ArrayList<>();
        try {
            // a note file that is a link could bring any file into the prompt: only a plain file
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return notes;
            }
            byte[] bytes;
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                long size = Files.size(file);
                if (size > MAX_READ) {
                    in.skipNBytes(size - MAX_READ);
                }
                bytes = in.readNBytes(MAX_READ);
            }
            return lines(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(java.nio.ByteBuffer.wrap(bytes)).toString());
        } catch (IOException | RuntimeException e) {
            return List.of(); // unreadable notes are no reason to fail a step
        }
    }

    /** The note lines ({@code - TEXT}) of a notes text, each cut to a line's worth, newest last. */
    private static List<String> lines(String text) {
        List<String> notes = new ArrayList<>();
        String tail = text.length() > MAX_READ ? text.substring(text.length() - MAX_READ) : text;
        for (String line : tail.split("\n")) {
            String note = line.strip();
            if (note.startsWith("- ") && note.length() > 2) {
                String body = note.substring(2).replaceAll("\\p{Cntrl}", " ").strip();
                notes.add("- " + (body.length() > MAX_LINE ? body.substring(0, MAX_LINE) + "..." : body));
            }
        }
        return notes;
    }
}
