package dev.quiver.tools.agent;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.UserQuestion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.osgi.service.component.annotations.Component;

/**
 * {@code ask}: a question for the user, with options (the recommended one first) or for a free-text
 * answer, put through the front end ({@link ToolContext#askUser}). It changes nothing, so it runs without
 * asking; it is a state tool so that no subagent is offered it, and the kernel withholds it from sessions
 * no one can answer (headless, batch, an MCP client without elicitation).
 */
@Component(property = {Tool.NAME + "=ask", Tool.SET + "=agent", Tool.ACCESS + "=state"})
public class AskTool implements Tool {

    /** Options a picker shows: each has a number key. */
    static final int MAX_OPTIONS = 9;
    static final int MAX_QUESTION = 2_000;
    static final int MAX_LABEL = 100;
    static final int MAX_DETAIL = 300;
    static final String DISMISSED = "The user dismissed this; use your best judgement.";

    private static final ToolSpec SPEC = new ToolSpec("ask",
            "Ask the user when a choice is theirs and you cannot infer it. Options: recommended first.",
            """
            {"type":"object","properties":{"question":{"type":"string"},\
            "options":{"type":"array","items":{"type":"object","properties":{\
            "label":{"type":"string"},"detail":{"type":"string"}},"required":["label"]}},\
            "multiple":{"type":"boolean","description":"Several may be chosen"}},\
            "required":["question"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        UserQuestion question = question(arguments);
        Optional<List<String>> answer = context.askUser(question);
        if (answer.isEmpty() || answer.get().isEmpty()) {
            return ToolResult.of(DISMISSED);
        }
        List<String> labels = question.options().stream().map(UserQuestion.Option::label).toList();
        if (!labels.containsAll(answer.get())) {
            // no options, or the user typed an answer of their own instead of choosing one
            return ToolResult.of("The user answered: " + String.join(", ", answer.get()));
        }
        return ToolResult.of("The user chose: " + String.join(", ", answer.get()));
    }

    /** The arguments as a question, checked: what a picker can show, each label once. */
    static UserQuestion question(Arguments arguments) throws ToolException {
        String question = arguments.string("question").strip();
        if (question.isEmpty()) {
            throw new ToolException("The question is empty. Write what you need the user to decide.");
        }
        if (question.length() > MAX_QUESTION) {
            throw new ToolException("The question has " + question.length() + " characters; keep it to "
                    + MAX_QUESTION + ".");
        }
        List<Arguments> items = arguments.objects("options");
        if (items.size() > MAX_OPTIONS) {
            throw new ToolException("There are " + items.size() + " options; offer at most " + MAX_OPTIONS
                    + ", the recommended one first.");
        }
        List<UserQuestion.Option> options = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            String label = NoteStore.oneLine(items.get(i).string("label"));
            String detail = NoteStore.oneLine(items.get(i).string("detail", ""));
            if (label.isEmpty()) {
                throw new ToolException("Option " + (i + 1) + " has no label. Give each option a short label.");
            }
            if (label.length() > MAX_LABEL || detail.length() > MAX_DETAIL) {
                throw new ToolException("Option " + (i + 1) + " is too long: keep a label to " + MAX_LABEL
                        + " characters and its detail to " + MAX_DETAIL + ".");
            }
            if (!seen.add(label)) {
                throw new ToolException("Two options are labelled '" + label + "'. Give each a label of its own.");
            }
            options.add(new UserQuestion.Option(label, detail));
        }
        return new UserQuestion(question, options, !options.isEmpty() && arguments.bool("multiple", false));
    }
}
