package dev.quiver.tools.agent;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * {@code remember}: keeps a short note about the workspace for later sessions. Each note is one line
 * {@code - TEXT} of {@value #FILE} in the workspace's state folder ({@link ToolContext#stateFolder()},
 * outside the working tree, so a cloned repository cannot plant notes the agent takes for its own); the
 * kernel lists the newest notes in the system prompt at every step of every session of the workspace
 * while this tool is offered. The file is plain Markdown the user may edit. It changes nothing but the
 * agent's own state, so it runs without asking.
 */
@Component(property = {Tool.NAME + "=remember", Tool.SET + "=agent", Tool.ACCESS + "=state"})
public class RememberTool implements Tool {

    /** The notes file, in the workspace's state folder. */
    static final String FILE = "notes.md";
    /** Characters one note may have. */
    static final int MAX_NOTE = 200;
    /** Notes kept in the file; the oldest go first. */
    static final int MAX_NOTES = 100;

    private static final ToolSpec SPEC = new ToolSpec("remember",
            "Save a one-line fact about this workspace for future sessions (build command, convention, pitfall).",
            "{\"type\":\"object\",\"properties\":{\"note\":{\"type\":\"string\"}},\"required\":[\"note\"]}");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String note = oneLine(arguments.string("note"));
        if (note.isEmpty()) {
            throw new ToolException("The note is empty. Write the fact to remember in one short line.");
        }
        if (note.length() > MAX_NOTE) {
            throw new ToolException("The note has " + note.length() + " characters; keep it to " + MAX_NOTE
                    + ". Nothing was saved.");
        }
        Path folder = context.stateFolder().orElseThrow(() -> new ToolException("This session keeps no state "
                + "between sessions, so notes cannot be saved here."));
        Path file = folder.resolve(FILE);
        if (Files.isSymbolicLink(file) || Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolException(file + " is not a plain file; notes were not saved.");
        }
        synchronized (RememberTool.class) {
            try {
                List<String> notes = read(file);
                if (notes.contains("- " + note)) {
                    return ToolResult.of("Already remembered: " + note);
                }
                notes.add("- " + note);
                int dropped = Math.max(0, notes.size() - MAX_NOTES);
                List<String> kept = notes.subList(dropped, notes.size());
                write(file, (String.join("\n", kept) + "\n").getBytes(StandardCharsets.UTF_8));
                String result = "Remembered (" + kept.size() + " notes for this workspace): " + note;
                return ToolResult.of(dropped > 0 ? result + "\nThe oldest note was dropped to keep " + MAX_NOTES + "."
                        : result);
            } catch (IOException e) {
                throw new ToolException("Could not save the note to " + file + ": " + e.getMessage());
            }
        }
    }

    /** Replaces the file whole (a temporary file, then a rename), so a reader never sees half of it. */
    private static void write(Path file, byte[] content) throws IOException {
        Files.createDirectories(file.getParent());
        Path temporary = Files.createTempFile(file.getParent(), ".notes", ".tmp");
        try {
            Files.write(temporary, content);
            Files.move(temporary, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** The note lines of the file ({@code - TEXT}), other lines dropped; empty when there is no file. */
    static List<String> read(Path file) throws IOException {
        List<String> notes = new ArrayList<>();
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return notes;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.startsWith("- ") && !line.substring(2).isBlank()) {
                notes.add(line.stripTrailing());
            }
        }
        return notes;
    }

    /** Whitespace runs, line breaks included, become one space. */
    static String oneLine(String text) {
        return text.replaceAll("[\\s\\p{Cntrl}]+", " ").strip();
    }
}
