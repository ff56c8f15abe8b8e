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
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/**
 * {@code forget}: removes one of the agent's notes, named by its id (from {@code recall} or
 * {@code remember}) or its exact text. The repository's committed notes are not the agent's to remove:
 * the model is told that only the user can, by editing the file.
 */
@Component(property = {Tool.NAME + "=forget", Tool.SET + "=agent", Tool.ACCESS + "=state"})
public class ForgetTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("forget",
            "Remove a remembered note that turned out wrong, by its id (from recall) or its exact text.",
            "{\"type\":\"object\",\"properties\":{\"note\":{\"type\":\"string\"}},\"required\":[\"note\"]}");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String wanted = NoteStore.oneLine(arguments.string("note"));
        String id = wanted.replaceAll("^\\[|\\]$", "").toLowerCase(java.util.Locale.ROOT);
        if (wanted.isEmpty()) {
            throw new ToolException("Name the note to forget: its id (from recall) or its exact text.");
        }
        NoteStore store = NoteStore.of(context);
        store.checkPlain();
        synchronized (NoteStore.class) {
            try {
                List<NoteStore.Note> notes = new ArrayList<>(store.own());
                List<NoteStore.Note> gone = notes.stream().filter(note -> matches(note, wanted, id)).toList();
                if (gone.isEmpty()) {
                    if (NoteStore.repository(context).stream().anyMatch(note -> matches(note, wanted, id))) {
                        throw new ToolException("That note is the repository's (" + NoteStore.SHARED + "), not yours: "
                                + "only the user can remove it, by editing that file. Nothing was forgotten; if it is "
                                + "wrong, tell the user.");
                    }
                    throw new ToolException("No remembered note has the id or the exact text '" + wanted + "'. Call "
                            + "recall with words from it to find its id. Nothing was forgotten.");
                }
                notes.removeAll(gone);
                store.write(notes);
                Map<String, Integer> recalls = store.recalls();
                gone.forEach(note -> recalls.remove(note.id()));
                store.writeRecalls(recalls);
                return ToolResult.of("Forgot [" + gone.get(0).id() + "] " + gone.get(0).line().substring(2) + " ("
                        + notes.size() + " notes left).");
            } catch (IOException e) {
                throw new ToolException("Could not change the notes in " + store.file() + ": " + e.getMessage());
            }
        }
    }

    /** By id, by exact text, or by the text as recall shows it with its kind. */
    private static boolean matches(NoteStore.Note note, String wanted, String id) {
        return note.id().equals(id) || note.text().equals(wanted) || note.line().substring(2).equals(wanted);
    }
}
