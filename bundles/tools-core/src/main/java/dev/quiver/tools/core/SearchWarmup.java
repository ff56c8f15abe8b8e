package dev.quiver.tools.core;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.osgi.service.component.annotations.Component;

/**
 * The search's part of a long-lived session's idle warm-up (the kernel's {@code IdleWarmup} runs it on
 * its thread when the front end says it is idle): grep's and glob's own code run a few times over a
 * small sample of the workspace's files, so the JIT has compiled the scan, the line matcher and the
 * per-file path and secret checks before the model's first search rather than during it.
 *
 * <p>The sample is the first files of the search's own walk, at most {@value #MAX_FILES} files and
 * {@value #MAX_BYTES} bytes, none larger than {@value #MAX_FILE_BYTES} bytes, none secret by name: the
 * files are read as grep reads them (through the workspace's jail, never marked as read for the edit
 * tools) and whatever is found is dropped. Nothing is written and nothing is shown.
 *
 * <p>A JDK type as the service (a {@link BiConsumer} of the workspace and a stop signal, with the
 * property {@value #PROPERTY}), so the kernel finds it without an API type; it runs on the caller's
 * thread and returns as soon as the signal says stop.
 */
@Component(service = BiConsumer.class, property = SearchWarmup.PROPERTY + "=search")
public class SearchWarmup implements BiConsumer<Workspace, BooleanSupplier> {

    /** The service property the kernel finds warm-ups by. */
    public static final String PROPERTY = "quiver.warmup";

    static final int MAX_FILES = 2000;
    static final long MAX_BYTES = 4L << 20;
    static final long MAX_FILE_BYTES = 256 << 10;
    /** Files the pattern without a literal runs over: it hands every line to RE2. */
    static final int LINE_BY_LINE_FILES = 200;
    /** How many times each search runs: the JIT compiles a method after some thousands of calls. */
    static final int ROUNDS = 3;

    /** One grep call's arguments. */
    private record Grep(String pattern, boolean fixed, boolean ignoreCase, boolean word, int context) {

        Search.Query query() throws ToolException {
            return GrepTool.query(pattern, fixed, ignoreCase, word, context, context, GrepTool.DEFAULT_MAX_RESULTS);
        }
    }

    /** A rare literal (the full scan), the same ignoring case, a regex with a literal, one with context and word. */
    private static final List<Grep> QUERIES = List.of(
            new Grep("qzxjvkwq", true, false, false, 0),
            new Grep("QZXJVKWQ", true, true, false, 0),
            new Grep("synchronized\\s+\\w+\\s*\\(", false, false, false, 0),
            new Grep("import\\s+\\w+", false, false, true, 1));
    /** A pattern without a literal: every line goes to RE2. */
    private static final Grep NO_LITERAL = new Grep("[A-Z]{3}\\d", false, false, false, 0);
    private static final List<String> GLOBS = List.of("**/*.java", "src/**/*.{ts,tsx}", "*.md");

    @Override
    public void accept(Workspace workspace, BooleanSupplier stop) {
        try {
            warm(workspace, stop);
        } catch (IOException | ToolException | RuntimeException e) {
            // only a head start: the first real search reports whatever is wrong
        }
    }

    private static void warm(Workspace workspace, BooleanSupplier stop) throws IOException, ToolException {
        List<String> sample = sample(workspace, stop);
        Workspace.FileList all = listOf(sample);
        Workspace.FileList few = listOf(sample.subList(0, Math.min(sample.size(), LINE_BY_LINE_FILES)));
        Predicate<String> any = path -> true;
        // glob's list of the walk's files, taken once: a tree with a link is walked afresh by every call
        List<String> files = workspace.files(workspace.root(), false);
        for (int round = 0; round < ROUNDS; round++) {
            for (Grep grep : QUERIES) {
                if (stop.getAsBoolean()) {
                    return;
                }
                Search.run(workspace, all, any, grep.query(), stop, 1);
            }
            if (stop.getAsBoolean()) {
                return;
            }
            Search.run(workspace, few, any, NO_LITERAL.query(), stop, 1);
            // glob: the walk's files through the matcher
            for (String glob : GLOBS) {
                if (stop.getAsBoolean()) {
                    return;
                }
                Predicate<String> matcher = workspace.globMatcher(glob);
                files.forEach(matcher::test);
            }
        }
    }

    /** The first files of grep's walk that fit the budget: regular, small, not secret by name, plainly named. */
    static List<String> sample(Workspace workspace, BooleanSupplier stop) throws IOException {
        Workspace.FileList files = workspace.fileList(workspace.root(), false);
        List<String> sample = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; sample.size() < MAX_FILES && bytes < MAX_BYTES && !stop.getAsBoolean(); i++) {
            String relative = files.get(i);
            if (relative == null) {
                break;
            }
            if (relative.indexOf('\\') >= 0 || workspace.isSecret(Path.of(relative))) {
                continue;
            }
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(workspace.root().resolve(relative), BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
            } catch (IOException gone) {
                continue;
            }
            if (attributes.isRegularFile() && attributes.size() <= MAX_FILE_BYTES
                    && bytes + attributes.size() <= MAX_BYTES) {
                sample.add(relative);
                bytes += attributes.size();
            }
        }
        return sample;
    }

    private static Workspace.FileList listOf(List<String> files) {
        return index -> index < files.size() ? files.get(index) : null;
    }
}
