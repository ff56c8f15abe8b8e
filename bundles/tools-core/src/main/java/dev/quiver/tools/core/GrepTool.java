package dev.quiver.tools.core;

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
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.osgi.service.component.annotations.Component;

/**
 * {@code grep}: lines matching a regular expression or a literal, in the files the ignore rules keep.
 * RE2/J runs in linear time, so no pattern can hang the host by backtracking; the search itself is
 * {@link Search}'s.
 */
@Component(property = {Tool.NAME + "=grep", Tool.SET + "=core", Tool.ACCESS + "=read"})
public class GrepTool implements Tool {

    static final int DEFAULT_MAX_RESULTS = 200;
    static final int MAX_RESULTS = 1000;
    static final int MAX_CONTEXT = 20;

    /** A word character for {@code word}: a letter, a digit or an underscore, in any script. */
    private static final String NOT_WORD = "[^\\p{L}\\p{N}_]";

    private static final ToolSpec SPEC = new ToolSpec("grep",
            "Search file contents by RE2 regex; prints path:line: text, maxResults 200. include: a glob like "
                    + "src/**/*.ts. Honours .gitignore.",
            """
            {"type":"object","properties":{\
            "pattern":{"type":"string"},\
            "include":{"type":"string"},\
            "fixedStrings":{"type":"boolean"},\
            "ignoreCase":{"type":"boolean"},\
            "word":{"type":"boolean"},\
            "contextBefore":{"type":"integer"},\
            "contextAfter":{"type":"integer"},\
            "maxResults":{"type":"integer"},\
            "includeIgnored":{"type":"boolean"}},\
            "required":["pattern"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        String source = arguments.string("pattern");
        boolean fixed = arguments.bool("fixedStrings", false);
        boolean ignoreCase = arguments.bool("ignoreCase", false);
        boolean word = arguments.bool("word", false);
        boolean includeIgnored = arguments.bool("includeIgnored", false);
        int before = arguments.integer("contextBefore", 0, 0, MAX_CONTEXT);
        int after = arguments.integer("contextAfter", 0, 0, MAX_CONTEXT);
        int maxResults = arguments.integer("maxResults", DEFAULT_MAX_RESULTS, 1, MAX_RESULTS);
        Optional<String> includeGlob = arguments.optionalString("include").filter(s -> !s.isBlank());
        Predicate<String> include = includeGlob.isPresent() ? workspace.globMatcher(includeGlob.get()) : path -> true;
        Search.Query query = query(source, fixed, ignoreCase, word, before, after, maxResults);
        Search.Outcome outcome;
        try {
            outcome = Search.run(workspace, workspace.fileList(workspace.root(), includeIgnored), include, query,
                    context::isCancelled);
        } catch (IOException e) {
            throw cannotList(e);
        } catch (UncheckedIOException e) {
            throw cannotList(e.getCause());
        }
        String out = render(outcome, before > 0 || after > 0);
        if (includeGlob.isPresent() && outcome.included() == 0 && !outcome.cancelled()) {
            out += " [include " + includeGlob.get() + " matched no file" + GlobTool.folderHint(workspace, includeGlob.get())
                    + "]";
        }
        if (outcome.files().isEmpty() && !includeIgnored) {
            String ignoredRoot = GlobTool.ignoredRootHint(workspace);
            out += ignoredRoot.isEmpty() ? "" : " [" + ignoredRoot + "]";
        }
        return ToolResult.of(out);
    }

    /** The search a call's arguments ask for (also what {@link SearchWarmup} runs). */
    static Search.Query query(String source, boolean fixed, boolean ignoreCase, boolean word, int before, int after,
            int maxResults) throws ToolException {
        if (source.indexOf('\n') >= 0 || source.indexOf('\r') >= 0) {
            throw new ToolException("grep matches one line at a time, so a pattern holding a line break never "
                    + "matches. Search for a single line of the text.");
        }
        String regex = fixed ? Pattern.quote(source) : source;
        Pattern pattern = compile(word ? "(?:^|" + NOT_WORD + ")(?:" + regex + ")(?:$|" + NOT_WORD + ")" : regex,
                ignoreCase, fixed, source);
        return new Search.Query(pattern, needles(regex, ignoreCase), before, after, maxResults);
    }

    private static ToolException cannotList(IOException e) {
        return new ToolException("Cannot list the workspace: " + e.getMessage(), e);
    }

    private static Pattern compile(String regex, boolean ignoreCase, boolean fixed, String source) throws ToolException {
        try {
            return Pattern.compile(regex, ignoreCase ? Pattern.CASE_INSENSITIVE : 0);
        } catch (PatternSyntaxException e) {
            if (fixed) {
                throw new ToolException("Invalid pattern: " + e.getMessage());
            }
            throw new ToolException("Invalid regex: " + e.getMessage() + ". To search for the text itself, set "
                    + "fixedStrings.");
        }
    }

    /** The byte strings the search scans for first: the literal of every alternative, in UTF-8 and, when it differs, ISO-8859-1. */
    static List<Needle> needles(String regex, boolean ignoreCase) {
        Optional<List<String>> literals = Literals.required(regex, ignoreCase);
        if (literals.isEmpty()) {
            return List.of();
        }
        List<Needle> needles = new ArrayList<>();
        for (String literal : literals.get()) {
            byte[] utf8 = literal.getBytes(StandardCharsets.UTF_8);
            needles.add(new Needle(utf8, ignoreCase));
            if (StandardCharsets.ISO_8859_1.newEncoder().canEncode(literal)) {
                byte[] latin1 = literal.getBytes(StandardCharsets.ISO_8859_1);
                if (!Arrays.equals(latin1, utf8)) {
                    // a file that is not UTF-8 is read as ISO-8859-1, where the same text has other bytes
                    needles.add(new Needle(latin1, ignoreCase));
                }
            }
        }
        return List.copyOf(needles);
    }

    private static String render(Search.Outcome outcome, boolean context) {
        StringBuilder out = new StringBuilder();
        for (Search.FileHits file : outcome.files()) {
            if (context && out.length() > 0) {
                out.append("--\n");
            }
            for (String line : file.lines()) {
                out.append(Search.printed(line)).append('\n');
            }
        }
        List<String> notes = new ArrayList<>();
        if (outcome.more()) {
            notes.add("... more lines match than the " + outcome.matches() + " shown; narrow the pattern or include, "
                    + "or raise maxResults.");
        }
        if (outcome.cancelled()) {
            notes.add("[cancelled before every file was searched]");
        }
        if (outcome.secrets() > 0) {
            notes.add("[skipped " + outcome.secrets() + (outcome.secrets() == 1 ? " file that holds" : " files that hold")
                    + " secrets by name]");
        }
        if (outcome.tooLarge() > 0) {
            notes.add("[skipped " + outcome.tooLarge() + (outcome.tooLarge() == 1 ? " file" : " files") + " over "
                    + (Search.MAX_FILE_BYTES >> 20) + " MB; search such files with bash]");
        }
        if (outcome.unreadable() > 0) {
            notes.add("[" + outcome.unreadable() + (outcome.unreadable() == 1 ? " file" : " files")
                    + " could not be read: gone, changed or refused since the tree was listed]");
        }
        if (outcome.files().isEmpty()) {
            out.append("No matches.");
            for (String note : notes) {
                out.append(' ').append(note);
            }
            return out.toString();
        }
        for (String note : notes) {
            out.append(note).append('\n');
        }
        return out.substring(0, out.length() - 1);
    }
}
