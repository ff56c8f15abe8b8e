package dev.quiver.tools.git;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Text;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.osgi.service.component.annotations.Component;

/**
 * {@code git_show_file}: a file as it was at a commit, numbered as read_file numbers it. Files that hold
 * secrets by their name are refused at every ref, as read_file refuses them in the working tree.
 */
@Component(property = {Tool.NAME + "=git_show_file", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitShowFileTool implements Tool {

    static final int DEFAULT_LIMIT = 2000;
    /** Bigger blobs are refused rather than loaded whole; read_file streams, a blob would not. */
    static final long MAX_BYTES = 32L << 20;
    /** A NUL byte this early makes a file binary, as read_file decides. */
    private static final int BINARY_PROBE = 8192;

    private static final ToolSpec SPEC = new ToolSpec("git_show_file",
            "A file at a commit, numbered like read_file. Use it to see an old version.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"File path"},\
            "ref":{"type":"string","description":"Commit, branch, tag"},\
            "offset":{"type":"integer","description":"First line, 1-based"},\
            "limit":{"type":"integer","description":"Max lines, default 2000"}},\
            "required":["path","ref"]}""");

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
        String path = arguments.string("path");
        String ref = arguments.string("ref");
        int offset = arguments.integer("offset", 1, 1, Integer.MAX_VALUE);
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, Integer.MAX_VALUE);
        try (GitRepo git = GitRepo.open(context.workspace()); RevWalk walk = new RevWalk(git.repository)) {
            String repoPath = git.historyPath(path);
            if (repoPath.equals(git.defaultScope())) {
                throw new ToolException(path + " is the workspace folder; git_show_file takes a file.");
            }
            String shown = git.shown(repoPath);
            // the name as written is what is read; the name a link leads to today is checked too, as read_file would
            if (git.isSecret(repoPath) || git.isSecret(git.repoPath(path))) {
                throw new ToolException(shown + " left out: the file holds secrets, so no version of it is shown.");
            }
            RevCommit commit = git.commit(walk, ref);
            String name = shown + " at " + ref;
            TreeWalk entry = TreeWalk.forPath(git.repository, repoPath, commit.getTree());
            if (entry == null) {
                throw new ToolException(shown + " does not exist at " + ref + " (" + GitRepo.shortId(commit)
                        + "). git_log_file lists the commits that touched it, under every name it had.");
            }
            FileMode mode = entry.getFileMode(0);
            if (mode == FileMode.TREE) {
                throw new ToolException(shown + " is a folder at " + ref + "; git_show_file takes a file.");
            }
            if (mode == FileMode.GITLINK) {
                return ToolResult.of(name + " is a submodule at commit " + entry.getObjectId(0).name()
                        + "; its files are in another repository.");
            }
            ObjectLoader loader = git.repository.open(entry.getObjectId(0));
            if (loader.getSize() > MAX_BYTES) {
                throw new ToolException(name + " is " + loader.getSize() + " bytes, over the " + MAX_BYTES
                        + " bytes git_show_file reads; git_diff_commits with this path shows what changed in it.");
            }
            byte[] bytes = loader.getCachedBytes(Integer.MAX_VALUE);
            if (mode == FileMode.SYMLINK) {
                return ToolResult.of(name + " is a symbolic link to " + new String(bytes, StandardCharsets.UTF_8));
            }
            for (int i = 0; i < Math.min(bytes.length, BINARY_PROBE); i++) {
                if (bytes[i] == 0) {
                    throw new ToolException(name + " is a binary file (" + bytes.length + " bytes); it has no lines to show.");
                }
            }
            List<String> lines = Text.lines(decode(bytes));
            if (offset > Math.max(lines.size(), 1)) {
                throw new ToolException("offset " + offset + " is past the end of " + name + ", which has " + lines.size()
                        + (lines.size() == 1 ? " line." : " lines."));
            }
            return ToolResult.of(Text.window(name, lines, offset, limit, GitRepo.MAX_CHARS).stripTrailing());
        } catch (IOException e) {
            throw new ToolException("Could not read " + path + " at " + ref + ": " + e.getMessage(), e);
        }
    }

    /** UTF-8 when the bytes are valid UTF-8, else ISO-8859-1, as read_file reads a file. */
    private static String decode(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
    }
}
