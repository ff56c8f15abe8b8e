package dev.quiver.tools.extra;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.core.JsonFactory;
import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * {@code json_query}: one value of a JSON file by a dotted path with array indices. Comments and
 * trailing commas are accepted (tsconfig.json, .vscode settings). The file's size and nesting depth
 * are bounded before anything is built, so a hostile file gives an error, never a stack overflow.
 */
@Component(property = {Tool.NAME + "=json_query", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class JsonQueryTool implements Tool {

    static final long MAX_BYTES = 16L * 1024 * 1024;
    static final int MAX_DEPTH = 256;
    /** Characters of a value shown, under the kernel's 30,000-character cap so the note saying so survives. */
    static final int MAX_CHARS = 28_000;

    private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                    .build())
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS, JsonReadFeature.ALLOW_YAML_COMMENTS,
                    JsonReadFeature.ALLOW_TRAILING_COMMA)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    private static final ToolSpec SPEC = new ToolSpec("json_query",
            "One value of a JSON file by path: scripts.build, a.b[2].c, [\"key.with.dots\"]; empty for the whole "
                    + "file. Comments allowed. Cheaper than reading a large JSON file.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"The JSON file"},\
            "query":{"type":"string"}},\
            "required":["path"]}""");

    /** One step of a query: an object key, or an array index (negative counts from the end). */
    record Step(String key, int index) {
        boolean isIndex() {
            return key == null;
        }

        @Override
        public String toString() {
            return isIndex() ? "[" + index + "]" : key.matches("[A-Za-z_$][\\w$-]*") ? "." + key
                    : "[\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
        }
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return LineFile.pathSubject(arguments);
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path file = workspace.resolve(arguments.string("path"));
        String name = workspace.relativize(file);
        List<Step> steps = parse(arguments.string("query", ""));
        if (workspace.isSecret(file)) {
            throw new ToolException(name + " holds secrets by its name; json_query does not read it.");
        }
        if (!Files.isRegularFile(file)) {
            throw new ToolException(Files.isDirectory(file) ? name + " is a folder; give a JSON file in it."
                    : "No such file: " + name + ". find_files finds it by name.");
        }
        JsonNode node = read(workspace, file, name);
        JsonNode at = node;
        for (int i = 0; i < steps.size(); i++) {
            JsonNode next = step(at, steps.get(i));
            if (next == null) {
                throw new ToolException(missing(name, steps, i, at));
            }
            at = next;
        }
        String shown;
        try {
            shown = at.isTextual() ? at.textValue() : JSON.writerWithDefaultPrettyPrinter().writeValueAsString(at);
        } catch (JsonProcessingException e) {
            throw new ToolException("Cannot print the value: " + e.getMessage(), e);
        }
        if (shown.length() > MAX_CHARS) {
            shown = shown.substring(0, MAX_CHARS) + "\n... [cut at " + MAX_CHARS + " of " + shown.length()
                    + " characters; query a part of it" + (at.isContainerNode() ? ", such as one of its "
                    + (at.isObject() ? "keys: " + keys(at) : at.size() + " elements") : "") + "]";
        }
        return ToolResult.of(shown);
    }

    private static JsonNode read(Workspace workspace, Path file, String name) throws ToolException {
        try (SeekableByteChannel channel = workspace.openRead(file)) {
            if (channel.size() > MAX_BYTES) {
                throw new ToolException(name + " is " + FileInfoTool.size(channel.size()) + ", more than the "
                        + (MAX_BYTES >> 20) + " MB json_query reads. Use grep, or jq in bash.");
            }
            JsonNode node = JSON.readTree(Channels.newInputStream(channel));
            if (node == null || node.isMissingNode()) {
                throw new ToolException(name + " is empty: there is no JSON value in it.");
            }
            return node;
        } catch (StreamConstraintsException e) {
            throw new ToolException(name + " nests deeper than " + MAX_DEPTH + " levels, more than json_query reads "
                    + "(such a file is machine-made or hostile). Use jq in bash, or grep for the key.", e);
        } catch (JsonProcessingException e) {
            throw new ToolException(name + " is not valid JSON (comments and trailing commas are allowed): "
                    + e.getOriginalMessage() + " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ". read_file shows the lines there.", e);
        } catch (IOException e) {
            throw new ToolException("Cannot read " + name + ": " + e.getMessage(), e);
        }
    }

    /** {@code a.b[2].c}, {@code ["a.b"].c}, {@code [0]}, {@code .a}; empty or {@code .} for the whole document. */
    static List<Step> parse(String query) throws ToolException {
        List<Step> steps = new ArrayList<>();
        String q = query.strip();
        int i = q.startsWith("$") ? 1 : 0;
        boolean expectKey = true;
        while (i < q.length()) {
            char c = q.charAt(i);
            if (c == '.') {
                i++;
                expectKey = true;
                continue;
            }
            if (c == '[') {
                int close;
                if (i + 1 < q.length() && (q.charAt(i + 1) == '"' || q.charAt(i + 1) == '\'')) {
                    char quote = q.charAt(i + 1);
                    StringBuilder key = new StringBuilder();
                    int j = i + 2;
                    while (j < q.length() && q.charAt(j) != quote) {
                        if (q.charAt(j) == '\\' && j + 1 < q.length()) {
                            j++;
                        }
                        key.append(q.charAt(j++));
                    }
                    if (j + 1 >= q.length() || q.charAt(j + 1) != ']') {
                        throw badQuery(query, "a quoted key in [ ] must end with " + quote + "]");
                    }
                    steps.add(new Step(key.toString(), 0));
                    i = j + 2;
                } else {
                    close = q.indexOf(']', i);
                    if (close < 0) {
                        throw badQuery(query, "[ has no ]");
                    }
                    String index = q.substring(i + 1, close).strip();
                    if (!index.matches("-?\\d{1,9}")) {
                        throw badQuery(query, "[" + index + "] is not an array index; quote a key as [\"" + index + "\"]");
                    }
                    steps.add(new Step(null, Integer.parseInt(index)));
                    i = close + 1;
                }
                expectKey = false;
                continue;
            }
            if (!expectKey) {
                throw badQuery(query, "a '.' or '[' is needed before '" + q.substring(i) + "'");
            }
            int end = i;
            while (end < q.length() && q.charAt(end) != '.' && q.charAt(end) != '[') {
                end++;
            }
            steps.add(new Step(q.substring(i, end), 0));
            i = end;
            expectKey = false;
        }
        return steps;
    }

    private static ToolException badQuery(String query, String why) {
        return new ToolException("Cannot read the query " + query + ": " + why + ". Write keys with dots and indices in "
                + "brackets, as in scripts.build or a.b[2].c.");
    }

    private static JsonNode step(JsonNode at, Step step) {
        if (step.isIndex()) {
            if (!at.isArray()) {
                return null;
            }
            int index = step.index() < 0 ? at.size() + step.index() : step.index();
            return index >= 0 && index < at.size() ? at.get(index) : null;
        }
        return at.isObject() ? at.get(step.key()) : null;
    }

    /** What is missing, and what the nearest existing prefix holds. */
    private static String missing(String name, List<Step> steps, int failed, JsonNode at) {
        StringBuilder found = new StringBuilder();
        for (Step step : steps.subList(0, failed)) {
            found.append(step);
        }
        String prefix = found.isEmpty() ? "the top level" : found.charAt(0) == '.' ? found.substring(1) : found.toString();
        Step step = steps.get(failed);
        String what = at.isObject() ? "an object with " + (at.isEmpty() ? "no keys" : "keys " + keys(at))
                : at.isArray() ? "an array of " + at.size() + (at.size() == 1 ? " element" : " elements")
                        + (at.isEmpty() ? "" : " (indices 0-" + (at.size() - 1) + ")")
                : "a " + at.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " (" + abbreviate(at.toString()) + ")";
        String asked = step.isIndex() ? "no index " + step.index() : "no key \"" + step.key() + "\"";
        return "Not found in " + name + ": " + prefix + " has " + asked + "; it is " + what + ".";
    }

    private static String keys(JsonNode object) {
        List<String> keys = new ArrayList<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext() && keys.size() < 30;) {
            keys.add(it.next());
        }
        return String.join(", ", keys) + (object.size() > keys.size() ? " and " + (object.size() - keys.size())
                + " more" : "");
    }

    private static String abbreviate(String text) {
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }
}
