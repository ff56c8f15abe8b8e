package dev.quiver.tools.nav;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/** {@code outline}: a source file's declarations, members indented under their types, each with its lines. */
@Component(property = {Tool.NAME + "=outline", Tool.SET + "=nav", Tool.ACCESS + "=read"})
public class OutlineTool implements Tool {

    /** The outline stops before passing this many characters, and says where. */
    static final int MAX_CHARS = 24_000;

    private static final ToolSpec SPEC = new ToolSpec("outline",
            "A source file's classes, functions, methods, types and constants with their line ranges, members "
                    + "indented: read it before opening a large file. Java, JS, TS, Python, Go, Rust.",
            """
            {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.path(arguments.string("path")));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path file = workspace.resolve(arguments.string("path"));
        String name = workspace.relativize(file);
        Sources.Outline outline = outline(workspace, file, name);
        List<Declaration> declarations = outline.declarations();
        StringBuilder out = new StringBuilder();
        out.append("[").append(name).append(": ").append(outline.language().title).append(", ")
                .append(declarations.size()).append(declarations.size() == 1 ? " declaration]" : " declarations]")
                .append('\n');
        out.append(outline.caveat(name).replace("][", "]\n[")).append(outline.caveat(name).isEmpty() ? "" : "\n");
        // an overloaded name gets its signature, so its entries can be told apart
        Map<String, Integer> counts = new HashMap<>();
        for (Declaration d : declarations) {
            if (d.isDefinition()) {
                counts.merge(d.qualifiedName(), 1, Integer::sum);
            }
        }
        for (int i = 0; i < declarations.size(); i++) {
            Declaration d = declarations.get(i);
            StringBuilder entry = new StringBuilder();
            entry.append("  ".repeat(d.depth())).append(d.kind()).append(' ').append(d.name()).append(' ')
                    .append(d.startLine()).append('-').append(d.endLine());
            if (d.isDefinition() && counts.get(d.qualifiedName()) > 1) {
                entry.append(" — ").append(d.signature());
            }
            if (out.length() + entry.length() > MAX_CHARS) {
                out.append("... ").append(declarations.size() - i).append(" more declarations from line ")
                        .append(d.startLine()).append("; read the file from there with read_file, or find_symbol by name.");
                return ToolResult.of(out.toString());
            }
            out.append(entry).append('\n');
        }
        if (declarations.isEmpty()) {
            out.append("(no declarations)");
            return ToolResult.of(out.toString());
        }
        return ToolResult.of(out.substring(0, out.length() - 1));
    }

    /** The outline of one file the model named, with errors that say what it can do instead. */
    static Sources.Outline outline(Workspace workspace, Path file, String name) throws ToolException {
        if (workspace.isSecret(file)) {
            throw new ToolException(name + " holds secrets by its name, so it is not read.");
        }
        Language language = Language.of(name).orElseThrow(() -> new ToolException("No grammar for " + name
                + ": declarations are read from " + Language.SUPPORTED + " files. Use read_file or grep for this one."));
        Sources.Outline outline;
        try {
            outline = Sources.outline(workspace, file, language);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ToolException("No such file: " + name + ". Find it with glob, or find_symbol by name.");
        } catch (IOException e) {
            throw new ToolException("Cannot read " + name + ": " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            throw new ToolException(e.getMessage(), e);
        }
        if (outline == null) {
            throw new ToolException(name + " is binary (it holds NUL bytes), so it has no declarations to read.");
        }
        return outline;
    }
}
