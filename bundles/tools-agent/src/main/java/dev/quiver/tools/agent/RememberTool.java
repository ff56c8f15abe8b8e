package dev.quiver.tools.agent;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.osgi.service.component.annotations.Component;

/**
 * {@code remember}: keeps a short note about the workspace for later sessions, with its kind (fact,
 * decision, preference, gotcha, command), in the workspace's state folder ({@link NoteStore}: outside
 * the working tree, so a cloned repository cannot plant notes the agent takes for its own). The kernel
 * lists the newest notes in the system prompt at every step of every session of the workspace while
 * this tool is offered. It changes nothing but the agent's own state, so it runs without asking.
 */
@Component(property = {Tool.NAME + "=remember", Tool.SET + "=agent", Tool.ACCESS + "=state"})
public class RememberTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("remember",
            "Save a one-line note about this workspace for future sessions (build command, convention, pitfall).",
            "{\"type\":\"object\",\"properties\":{\"note\":{\"type\":\"string\"},\"kind\":{\"enum\":"
                    + "[\"fact\",\"decision\",\"preference\",\"gotcha\",\"command\"]}},\"required\":[\"note\"]}");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String note = NoteStore.oneLine(arguments.string("note"));
        String kind = arguments.string("kind", NoteStore.KINDS.get(0)).strip().toLowerCase(Locale.ROOT);
        if (!NoteStore.KINDS.contains(kind)) {
            throw new ToolException("Unknown kind '" + kind + "'. Use one of " + String.join(", ", NoteStore.KINDS)
                    + ". Nothing was saved.");
        }
        if (note.isEmpty()) {
            throw new ToolException("The note is empty. Write the fact to remember in one short line.");
        }
        if (note.length() > NoteStore.MAX_NOTE) {
            throw new ToolException("The note has " + note.length() + " characters; keep it to " + NoteStore.MAX_NOTE
                    + ". Nothing was saved.");
        }
        NoteStore store = NoteStore.of(context);
        store.checkPlain();
        synchronized (NoteStore.class) {
            try {
                List<NoteStore.Note> notes = new ArrayList<>(store.own());
                NoteStore.Note added = NoteStore.note(kind, note, false);
                if (notes.stream().anyMatch(kept -> kept.text().equals(note))) {
                    return ToolResult.of("Already remembered: " + note);
                }
                notes.add(added);
                int dropped = Math.max(0, notes.size() - NoteStore.MAX_NOTES);
                List<NoteStore.Note> kept = notes.subList(dropped, notes.size());
                store.write(kept);
                String result = "Remembered as " + added.id() + " (" + kept.size() + " notes for this workspace): "
                        + added.line().substring(2);
                return ToolResult.of(dropped > 0 ? result + "\nThe oldest note was dropped to keep " + NoteStore.MAX_NOTES
                        + "." : result);
            } catch (IOException e) {
                throw new ToolException("Could not save the note to " + store.file() + ": " + e.getMessage());
            }
        }
    }
}
