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

/**
 * The notes the {@code remember} tool keeps in the workspace's {@code .quiver/notes.md}, one
 * {@code - TEXT} line each, read again at every step so that a note saved in one step, or in another
 * session of the same workspace, is in the next system prompt. Only the newest are shown, newest last.
 */
final class Notes {

    /** The tool whose presence in a step brings the notes into its prompt. */
    static final String TOOL = "remember";
    static final String FILE = ".quiver/notes.md";
    static final int MAX_SHOWN = 30;
    static final int MAX_CHARS = 3000;
    private static final int MAX_LINE = 200;
    private static final int MAX_READ = 256 * 1024;

    private Notes() {
    }

    /** The newest notes as prompt lines ({@code - TEXT}), newest last; empty when there are none. */
    static List<String> newest(Path workspace) {
        Path file = workspace.resolve(FILE);
        List<String> notes = new ArrayList<>();
        try {
            // a note file that is a link could bring any file into the prompt: only a plain file in the workspace
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                    || !file.getParent().toRealPath().startsWith(workspace.toRealPath())) {
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
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(java.nio.ByteBuffer.wrap(bytes)).toString();
            for (String line : text.split("\n")) {
                String note = line.strip();
                if (note.startsWith("- ") && note.length() > 2) {
                    String body = note.substring(2).replaceAll("\\p{Cntrl}", " ").strip();
                    notes.add("- " + (body.length() > MAX_LINE ? body.substring(0, MAX_LINE) + "..." : body));
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of(); // unreadable notes are no reason to fail a step
        }
        List<String> shown = new ArrayList<>();
        int chars = 0;
        for (int i = notes.size() - 1; i >= 0 && shown.size() < MAX_SHOWN; i--) {
            chars += notes.get(i).length() + 1;
            if (chars > MAX_CHARS) {
                break;
            }
            shown.add(0, notes.get(i));
        }
        return shown;
    }
}
