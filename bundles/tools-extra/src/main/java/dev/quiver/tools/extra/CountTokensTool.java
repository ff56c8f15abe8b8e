package dev.quiver.tools.extra;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.osgi.service.component.annotations.Component;

/**
 * {@code count_tokens}: how many tokens a file or a text takes, counted by a real tokenizer (jtokkit's
 * byte-pair encodings of OpenAI's models), naming the encoding, since other models' tokenizers differ.
 */
@Component(property = {Tool.NAME + "=count_tokens", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class CountTokensTool implements Tool {

    /** Characters counted at most, file or text: a tokenizer's work grows with it. */
    static final int MAX_CHARS = 8 * 1024 * 1024;

    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

    private static final ToolSpec SPEC = new ToolSpec("count_tokens",
            "Count the tokens of a file or a text with a real tokenizer (OpenAI's o200k_base by default); to see "
                    + "what fits a context. Other models count differently.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"},\
            "text":{"type":"string","description":"Or this text"},\
            "encoding":{"type":"string","description":"o200k_base, cl100k_base, p50k_base, r50k_base"}}}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return arguments.has("path") ? List.of(Subject.path(arguments.string("path"))) : List.of();
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        if (arguments.has("path") == arguments.has("text")) {
            throw new ToolException("Give either path (a file) or text, not " + (arguments.has("path") ? "both." : "neither."));
        }
        EncodingType type = encoding(arguments.string("encoding", "o200k_base"));
        String text;
        String what;
        if (arguments.has("path")) {
            Workspace workspace = context.workspace();
            Path file = workspace.resolve(arguments.string("path"));
            what = workspace.relativize(file);
            if (workspace.isSecret(file)) {
                throw new ToolException(what + " holds secrets by its name; count_tokens does not read it.");
            }
            if (Files.isDirectory(file)) {
                throw new ToolException(what + " is a folder; count one file at a time.");
            }
            try {
                if (Files.size(file) > MAX_CHARS * 4L) {
                    throw new ToolException(what + " is " + FileInfoTool.size(Files.size(file)) + ", more than count_tokens "
                            + "reads. A rough figure: about one token per 4 bytes of English or code.");
                }
            } catch (java.io.IOException e) {
                throw new ToolException("No such file: " + what + ".", e);
            }
            text = workspace.readText(file).text();
        } else {
            text = arguments.string("text");
            what = "the text";
        }
        if (text.length() > MAX_CHARS) {
            throw new ToolException(what + " has " + text.length() + " characters, more than the " + MAX_CHARS
                    + " count_tokens counts. A rough figure: about one token per 4 characters of English or code.");
        }
        Encoding encoding = REGISTRY.getEncoding(type);
        int tokens = encoding.countTokensOrdinary(text);
        return ToolResult.of(tokens + (tokens == 1 ? " token" : " tokens") + " in " + what + " (" + text.length()
                + " characters), by " + type.getName() + (type == EncodingType.O200K_BASE ? " (GPT-4o and later)"
                : type == EncodingType.CL100K_BASE ? " (GPT-4, GPT-3.5)" : "")
                + ". Other models (Claude, Gemini, Llama, ...) tokenize differently; take it as an estimate for them.");
    }

    private static EncodingType encoding(String name) throws ToolException {
        String wanted = name.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(EncodingType.values()).filter(type -> type.getName().equals(wanted)).findFirst()
                .orElseThrow(() -> new ToolException("Unknown encoding \"" + name + "\". Use one of: "
                        + String.join(", ", Arrays.stream(EncodingType.values()).map(EncodingType::getName).toList())
                        + "."));
    }
}
