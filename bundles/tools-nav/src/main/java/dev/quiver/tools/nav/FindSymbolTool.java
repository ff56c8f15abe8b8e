package dev.quiver.tools.nav;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.osgi.service.component.annotations.Component;

/**
 * {@code find_symbol}: where a name is declared, read from tree-sitter's parse of each source file, so
 * uses, comments and strings never match. nca's {@code query_symbols} arguments are accepted as they are
 * named there: {@code query} for {@code name}, {@code glob} for {@code include}. Like grep, it names no
 * subject: the include glob is a filter, not a path, and secret files are skipped whatever it says.
 */
@Component(property = {Tool.NAME + "=find_symbol", Tool.SET + "=nav", Tool.ACCESS + "=read"})
public class FindSymbolTool implements Tool {

    static final int DEFAULT_MAX_RESULTS = 100;
    static final int MAX_RESULTS = 1000;

    /** The kinds a declaration is given, in every language. */
    static final Set<String> KINDS = new LinkedHashSet<>(List.of("class", "struct", "interface", "trait", "enum",
            "type", "function", "method", "constant", "module"));

    private static final ToolSpec SPEC = new ToolSpec("find_symbol",
            "Find where functions, methods, classes, types or constants are defined (parsed: Java, JS, TS, Python, "
                    + "Go, Rust). name: exact, glob (*Handler) or Class.method. Prints path:line: kind name — signature.",
            """
            {"type":"object","properties":{\
            "name":{"type":"string"},\
            "kind":{"type":"string"},\
            "include":{"type":"string"},\
            "maxResults":{"type":"integer"}}}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        NamePattern name = NamePattern.parse(name(arguments));
        String kind = kind(arguments);
        int maxResults = arguments.integer("maxResults", DEFAULT_MAX_RESULTS, 1, MAX_RESULTS);
        Optional<String> include = include(arguments);
        Predicate<String> filter = include.isPresent() ? workspace.globMatcher(include.get()) : path -> true;
        SymbolSearch.Result result = SymbolSearch.run(workspace, name, kind, filter, context::isCancelled);
        return ToolResult.of(render(result, name, kind, include, maxResults));
    }

    /** {@code name}, or nca's {@code query}. */
    static String name(Arguments arguments) throws ToolException {
        Optional<String> name = arguments.optionalString("name");
        if (name.isEmpty()) {
            name = arguments.optionalString("query");
        }
        return name.orElseThrow(() -> new ToolException("name is required: the symbol to find, such as Parser, "
                + "parse_args, Parser.parse or *Handler."));
    }

    /** {@code include}, or nca's {@code glob}. */
    private static Optional<String> include(Arguments arguments) throws ToolException {
        Optional<String> include = arguments.optionalString("include").filter(s -> !s.isBlank());
        return include.isPresent() ? include : arguments.optionalString("glob").filter(s -> !s.isBlank());
    }

    private static String kind(Arguments arguments) throws ToolException {
        Optional<String> kind = arguments.optionalString("kind").map(s -> s.strip().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty());
        if (kind.isEmpty()) {
            return null;
        }
        String wanted = switch (kind.get()) {
            case "func", "fn", "def" -> "function";
            case "const", "static" -> "constant";
            case "mod", "namespace" -> "module";
            default -> kind.get();
        };
        if (!KINDS.contains(wanted)) {
            throw new ToolException("kind '" + kind.get() + "' is not one of " + String.join(", ", KINDS)
                    + ". Leave kind out to find every kind.");
        }
        return wanted;
    }

    private static String render(SymbolSearch.Result result, NamePattern name, String kind, Optional<String> include,
            int maxResults) {
        StringBuilder out = new StringBuilder();
        List<SymbolSearch.Hit> hits = result.hits();
        Set<String> partial = new LinkedHashSet<>();
        for (int i = 0; i < hits.size() && i < maxResults; i++) {
            SymbolSearch.Hit hit = hits.get(i);
            out.append(line(hit)).append('\n');
            String caveat = hit.outline().caveat(hit.path());
            if (!caveat.isEmpty()) {
                partial.add(caveat);
            }
        }
        List<String> notes = new ArrayList<>(partial);
        notes.addAll(result.missedNotes());
        if (hits.size() > maxResults) {
            notes.add("... " + (hits.size() - maxResults) + " more definitions match than the " + maxResults
                    + " shown; narrow name, kind or include, or raise maxResults.");
        }
        if (result.cancelled()) {
            notes.add("[cancelled before every file was searched]");
        }
        if (result.secrets() > 0) {
            notes.add("[skipped " + result.secrets() + " file(s) that hold secrets by name]");
        }
        if (result.binary() > 0) {
            notes.add("[skipped " + result.binary() + " binary file(s)]");
        }
        if (result.unreadable() > 0) {
            notes.add("[" + result.unreadable() + " file(s) could not be read]");
        }
        if (hits.isEmpty()) {
            out.append("No definition of ").append(name).append(kind == null ? "" : " (kind " + kind + ")")
                    .append(" in ").append(result.sourceFiles()).append(" source files.");
            if (include.isPresent() && result.includedFiles() == 0) {
                out.append(" include ").append(include.get()).append(" matched no file.");
            } else if (result.sourceFiles() == 0) {
                out.append(" Symbols are read from ").append(Language.SUPPORTED)
                        .append(" files only; for other files use grep.");
            } else {
                out.append(" Declarations are matched by exact name and case; try a glob such as *")
                        .append(name.toString().replaceAll(".*\\.", "")).append("* or grep for uses.");
            }
            for (String note : notes) {
                out.append('\n').append(note);
            }
            return out.toString();
        }
        for (String note : notes) {
            out.append(note).append('\n');
        }
        return out.substring(0, out.length() - 1);
    }

    /** {@code path:line: kind Container.name — signature}. */
    static String line(SymbolSearch.Hit hit) {
        Declaration d = hit.declaration();
        return hit.path() + ":" + d.line() + ": " + d.kind() + " " + d.qualifiedName() + " — " + d.signature();
    }
}
