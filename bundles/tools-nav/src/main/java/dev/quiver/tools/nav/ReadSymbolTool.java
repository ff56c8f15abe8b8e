package dev.quiver.tools.nav;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Text;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.osgi.service.component.annotations.Component;

/**
 * {@code read_symbol}: the whole text of one definition, found by name in a file or in the workspace.
 * Overloads of one name in one file are shown together; a name defined in several places lists them.
 */
@Component(property = {Tool.NAME + "=read_symbol", Tool.SET + "=nav", Tool.ACCESS + "=read"})
public class ReadSymbolTool implements Tool {

    /** What is shown stops before passing this many characters, and says where to go on. */
    static final int MAX_CHARS = 24_000;
    /** Candidates listed when a name is ambiguous. */
    static final int MAX_CANDIDATES = 30;

    private static final ToolSpec SPEC = new ToolSpec("read_symbol",
            "Read one definition's full text by name (Class.method allowed) with its line range, instead of the "
                    + "whole file. path: the file; without it the workspace is searched.",
            """
            {"type":"object","properties":{"name":{"type":"string"},"path":{"type":"string"}},"required":["name"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        Optional<String> path = arguments.optionalString("path").filter(s -> !s.isBlank());
        return path.isPresent() ? List.of(Subject.path(path.get())) : List.of();
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        NamePattern name = NamePattern.parse(arguments.string("name"));
        Optional<String> path = arguments.optionalString("path").filter(s -> !s.isBlank());
        List<SymbolSearch.Hit> hits = new ArrayList<>();
        if (path.isPresent()) {
            Path file = workspace.resolve(path.get());
            String shown = workspace.relativize(file);
            Sources.Outline outline = OutlineTool.outline(workspace, file, shown);
            for (Declaration declaration : outline.declarations()) {
                if (declaration.isDefinition() && name.matches(declaration)) {
                    hits.add(new SymbolSearch.Hit(shown, declaration, outline));
                }
            }
            if (hits.isEmpty()) {
                String caveat = outline.caveat(shown);
                throw new ToolException("No definition of " + name + " in " + shown + ". " + declared(outline)
                        + (caveat.isEmpty() ? "" : " " + caveat));
            }
        } else {
            SymbolSearch.Result result = SymbolSearch.run(workspace, name, null, p -> true, context::isCancelled);
            hits.addAll(result.hits());
            if (hits.isEmpty()) {
                throw new ToolException("No definition of " + name + " in the workspace's " + result.sourceFiles()
                        + " source files (" + Language.SUPPORTED + "). Names match exactly and by case; find_symbol "
                        + "takes a glob such as *" + name.toString().replaceAll(".*\\.", "") + "*."
                        + result.missedNotes().stream().map(note -> " " + note).collect(Collectors.joining()));
            }
        }
        SymbolSearch.Hit first = hits.get(0);
        boolean overloads = hits.stream().allMatch(hit -> hit.path().equals(first.path())
                && hit.declaration().qualifiedName().equals(first.declaration().qualifiedName()));
        if (!overloads) {
            return ToolResult.of(candidates(name, hits));
        }
        return ToolResult.of(show(workspace, hits));
    }

    private static String declared(Sources.Outline outline) {
        List<String> names = outline.declarations().stream().filter(Declaration::isDefinition)
                .map(Declaration::qualifiedName).distinct().limit(40).toList();
        return names.isEmpty() ? "It declares nothing." : "It declares: " + String.join(", ", names) + ".";
    }

    private static String candidates(NamePattern name, List<SymbolSearch.Hit> hits) {
        StringBuilder out = new StringBuilder();
        out.append(name).append(" is defined in ").append(hits.size()).append(" places; ask again with path, or with "
                + "the name qualified (Class.method):\n");
        for (int i = 0; i < hits.size() && i < MAX_CANDIDATES; i++) {
            out.append(FindSymbolTool.line(hits.get(i))).append('\n');
        }
        if (hits.size() > MAX_CANDIDATES) {
            out.append("... and ").append(hits.size() - MAX_CANDIDATES).append(" more; find_symbol lists them all.");
            return out.toString();
        }
        return out.substring(0, out.length() - 1);
    }

    /** Each definition's lines, numbered, under a header naming it and its range. */
    private static String show(Workspace workspace, List<SymbolSearch.Hit> hits) throws ToolException {
        StringBuilder out = new StringBuilder();
        SymbolSearch.Hit first = hits.get(0);
        Path file = workspace.resolve(first.path());
        String caveat = first.outline().caveat(first.path());
        if (!caveat.isEmpty()) {
            out.append(caveat).append('\n');
        }
        for (SymbolSearch.Hit hit : hits) {
            Declaration d = hit.declaration();
            int count = d.endLine() - d.startLine() + 1;
            List<String> lines = workspace.readLines(file, d.startLine(), count).lines();
            out.append('[').append(hit.path()).append(':').append(d.startLine()).append('-').append(d.endLine())
                    .append(": ").append(d.kind()).append(' ').append(d.qualifiedName()).append("]\n");
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                int number = d.startLine() + i;
                if (line.length() > Text.MAX_LINE_CHARS) {
                    line = line.substring(0, Text.MAX_LINE_CHARS) + " ... [line cut at " + Text.MAX_LINE_CHARS
                            + " chars]";
                }
                if (out.length() + line.length() > MAX_CHARS) {
                    out.append("[cut at line ").append(number - 1).append(" of ").append(d.startLine()).append('-')
                            .append(d.endLine()).append("; read on with read_file path ").append(hit.path())
                            .append(" offset ").append(number).append("]");
                    return out.toString();
                }
                out.append(number).append(": ").append(line).append('\n');
            }
        }
        return out.substring(0, out.length() - 1);
    }
}
