package dev.quiver.tools.core;

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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.osgi.service.component.annotations.Component;

/**
 * {@code read_many_files}: several files in one call, read concurrently, each in its own block in the
 * order asked. A path that cannot be read is reported in its block and the others are still shown; a
 * path holding secrets is refused in its block and never read. Files are read and numbered by the same
 * code as read_file.
 */
@Component(property = {Tool.NAME + "=read_many_files", Tool.SET + "=core", Tool.ACCESS + "=read"})
public class ReadManyFilesTool implements Tool {

    static final int MAX_FILES = 20;
    private static final int READERS = 4;

    private static final ToolSpec SPEC = new ToolSpec("read_many_files",
            "Read up to 20 text files in one call, each with its own optional window, numbered like read_file. "
                    + "Blocks come back in the order given; a file that cannot be read is reported in its block "
                    + "instead of failing the call.",
            """
            {"type":"object","properties":{"files":{"type":"array","maxItems":20,"items":{\
            "type":"object","properties":{\
            "path":{"type":"string"},\
            "offset":{"type":"integer","description":"First line, 1-based"},\
            "limit":{"type":"integer","description":"Max lines, default 2000"}},\
            "required":["path"]}}},\
            "required":["files"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    /**
     * Every path to be read. A path holding secrets by its name is left out, since it is refused in its
     * block without being read; without a workspace only the name as written can be judged.
     */
    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        List<Subject> subjects = new ArrayList<>();
        for (Arguments file : arguments.objects("files")) {
            String path = file.string("path");
            if (!SecretNames.isSecret(path)) {
                subjects.add(Subject.path(path));
            }
        }
        return subjects;
    }

    /** As {@link #subjects(Arguments)}, judging each path where it really leads, links included, as the call will. */
    @Override
    public List<Subject> subjects(Arguments arguments, Workspace workspace) throws ToolException {
        List<Subject> subjects = new ArrayList<>();
        for (Subject subject : subjects(arguments)) {
            try {
                if (workspace.isSecret(workspace.resolve(subject.value()))) {
                    continue;
                }
            } catch (ToolException unresolvable) {
                if (leadsToSecret(workspace, subject.value())) {
                    continue; // a link to a secret: the jail refuses it in its block, unread
                }
                // an escaping or malformed path stays a subject, so that rules and guards see it
            }
            subjects.add(subject);
        }
        return subjects;
    }

    /** Whether a path that the jail refuses leads to a secret file inside the workspace (judged only, never read). */
    private static boolean leadsToSecret(Workspace workspace, String path) {
        try {
            Path real = workspace.root().resolve(path).toRealPath();
            return real.startsWith(workspace.root()) && workspace.isSecret(real);
        } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
            return false;
        }
    }

    /** One requested file: what to show, or why not. */
    private record Block(String asked, String name, List<String> lines, int offset, int limit, String problem) {

        /** The block, its window cut to fit {@code maxChars}. */
        String render(int maxChars) {
            StringBuilder out = new StringBuilder("==> ").append(asked).append(" <==\n");
            if (problem != null) {
                return out.append('[').append(problem).append("]\n").toString();
            }
            return out.append(Text.window(name, lines, offset, limit, maxChars - out.length())).toString();
        }
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        List<Arguments> files = arguments.objects("files");
        if (files.isEmpty()) {
            throw new ToolException("files is empty. Give at least one {\"path\": ...}.");
        }
        if (files.size() > MAX_FILES) {
            throw new ToolException("files holds " + files.size() + " entries; at most " + MAX_FILES
                    + " can be read per call. Split them over several calls.");
        }
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            Arguments file = files.get(i);
            requests.add(new Request(file.string("path"), file.integer("offset", 1, 1, Integer.MAX_VALUE),
                    file.integer("limit", ReadFileTool.DEFAULT_LIMIT, 1, ReadFileTool.MAX_LIMIT)));
        }
        List<Block> blocks = readAll(context.workspace(), requests);
        return ToolResult.of(render(blocks));
    }

    private record Request(String path, int offset, int limit) {
    }

    private static List<Block> readAll(Workspace workspace, List<Request> requests) throws ToolException {
        ExecutorService readers = Executors.newFixedThreadPool(Math.min(READERS, requests.size()), runnable -> {
            Thread thread = new Thread(runnable, "quiver-read-many-files");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Block>> pending = new ArrayList<>();
            for (Request request : requests) {
                pending.add(readers.submit(() -> read(workspace, request)));
            }
            List<Block> blocks = new ArrayList<>();
            for (int i = 0; i < pending.size(); i++) {
                try {
                    blocks.add(pending.get(i).get());
                } catch (ExecutionException e) {
                    String problem = "unreadable: " + e.getCause().getClass().getSimpleName();
                    blocks.add(new Block(requests.get(i).path(), null, null, 0, 0, problem));
                }
            }
            return blocks;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolException("The call was interrupted before every file was read.");
        } finally {
            readers.shutdownNow();
        }
    }

    private static Block read(Workspace workspace, Request request) {
        String asked = request.path();
        try {
            if (SecretNames.isSecret(asked)) {
                return refused(asked, asked);
            }
            Path file = workspace.resolve(asked);
            String name = workspace.relativize(file);
            if (workspace.isSecret(file)) {
                return refused(asked, name);
            }
            List<String> lines = ReadFileTool.lines(workspace, file, request.offset(), request.limit());
            return new Block(asked, name, lines, request.offset(), request.limit(), null);
        } catch (ToolException e) {
            return new Block(asked, null, null, 0, 0, "unreadable: " + stripPeriod(e.getMessage()));
        }
    }

    private static String stripPeriod(String message) {
        return message.endsWith(".") ? message.substring(0, message.length() - 1) : message;
    }

    private static Block refused(String asked, String name) {
        return new Block(asked, null, null, 0, 0, "refused: " + name + " holds secrets by its name, so it was not "
                + "read. Ask the user for the value you need");
    }

    /**
     * The blocks in order, together within the read_file budget ({@link ReadFileTool#OUTPUT_BUDGET}), each
     * cut to a window that fits its share: small blocks keep everything and leave their unused share to
     * the large ones.
     */
    static String render(List<Block> blocks) {
        int[] sizes = new int[blocks.size()];
        for (int i = 0; i < blocks.size(); i++) {
            sizes[i] = blocks.get(i).render(ReadFileTool.OUTPUT_BUDGET).length();
        }
        int budget = ReadFileTool.OUTPUT_BUDGET;
        List<Integer> large = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            large.add(i);
        }
        // water-filling: blocks that fit in an even share keep their size; the rest split what is left
        boolean changed = true;
        while (changed && !large.isEmpty()) {
            changed = false;
            int share = budget / large.size();
            for (int k = 0; k < large.size(); k++) {
                int i = large.get(k);
                if (sizes[i] <= share) {
                    budget -= sizes[i];
                    large.remove(k);
                    changed = true;
                    break;
                }
            }
        }
        int share = large.isEmpty() ? 0 : Math.max(0, budget / large.size());
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < blocks.size(); i++) {
            if (i > 0) {
                out.append('\n');
            }
            out.append(blocks.get(i).render(large.contains(i) ? share : ReadFileTool.OUTPUT_BUDGET));
        }
        return out.toString();
    }
}
