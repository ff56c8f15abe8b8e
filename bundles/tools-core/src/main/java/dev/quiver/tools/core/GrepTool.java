package dev.quiver.tools.core;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.osgi.service.component.annotations.Component;

/**
 * {@code grep}: lines matching a regular expression, in files that the ignore rules keep. RE2/J runs
 * in linear time, so no pattern can hang the host by backtracking.
 */
@Component(property = {Tool.NAME + "=grep", Tool.SET + "=core", Tool.ACCESS + "=read"})
public class GrepTool implements Tool {

    static final int MAX_HITS = 200;
    static final int MAX_LINE_CHARS = 300;

    private static final ToolSpec SPEC = new ToolSpec("grep",
            "Search file contents with a regex (RE2 syntax). Output path:line: text. Honours .gitignore, "
                    + "skips binaries.",
            """
            {"type":"object","properties":{\
            "pattern":{"type":"string"},\
            "include":{"type":"string","description":"Glob of files to search, e.g. **/*.java"},\
            "ignoreCase":{"type":"boolean"},\
            "includeIgnored":{"type":"boolean","description":"Also files git ignores"}},\
            "required":["pattern"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        String source = arguments.string("pattern");
        boolean ignoreCase = arguments.bool("ignoreCase", false);
        boolean includeIgnored = arguments.bool("includeIgnored", false);
        Predicate<String> include = arguments.optionalString("include").filter(s -> !s.isBlank()).isPresent()
                ? workspace.globMatcher(arguments.string("include"))
                : path -> true;
        Pattern pattern;
        try {
            pattern = Pattern.compile(source, ignoreCase ? Pattern.CASE_INSENSITIVE : 0);
        } catch (PatternSyntaxException e) {
            throw new ToolException("Invalid regex: " + e.getMessage());
        }
        List<String> hits = new ArrayList<>();
        int[] more = {0};
        try {
            workspace.walk(workspace.root(), includeIgnored, Integer.MAX_VALUE, entry -> {
                if (context.isCancelled()) {
                    return false;
                }
                if (entry.kind() != Workspace.Entry.Kind.FILE || !include.test(entry.relativePath())) {
                    return true;
                }
                search(workspace, entry, pattern, hits, more);
                return true;
            });
        } catch (IOException e) {
            throw new ToolException("Cannot walk the workspace: " + e.getMessage(), e);
        }
        if (hits.isEmpty()) {
            return ToolResult.of("No matches.");
        }
        StringBuilder out = new StringBuilder(String.join("\n", hits));
        if (more[0] > 0) {
            out.append("\n... ").append(more[0]).append(" more matching lines; narrow the pattern or include.");
        }
        return ToolResult.of(out.toString());
    }

    private static void search(Workspace workspace, Workspace.Entry entry, Pattern pattern, List<String> hits, int[] more) {
        String text;
        try {
            text = workspace.readText(entry.path()).text();
        } catch (ToolException binaryOrUnreadable) {
            return;
        }
        List<String> lines = TextLines.split(text);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher matcher = pattern.matcher(line);
            if (matcher.find()) {
                if (hits.size() < MAX_HITS) {
                    String shown = line.length() > MAX_LINE_CHARS ? line.substring(0, MAX_LINE_CHARS) + "..." : line;
                    hits.add(entry.relativePath() + ":" + (i + 1) + ": " + shown);
                } else {
                    more[0]++;
                }
            }
        }
    }
}
