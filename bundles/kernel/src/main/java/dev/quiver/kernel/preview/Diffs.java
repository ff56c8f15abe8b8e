package dev.quiver.kernel.preview;

import dev.quiver.api.Workspace;
import dev.quiver.kernel.preview.RecordingWorkspace.Committed;
import dev.quiver.kernel.preview.RecordingWorkspace.Delete;
import dev.quiver.kernel.preview.RecordingWorkspace.Direct;
import dev.quiver.kernel.preview.RecordingWorkspace.Effect;
import dev.quiver.kernel.preview.RecordingWorkspace.MakeFolders;
import dev.quiver.kernel.preview.RecordingWorkspace.Permissions;
import dev.quiver.kernel.preview.RecordingWorkspace.Replace;
import dev.quiver.kernel.preview.RecordingWorkspace.Step;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.diff.EditList;
import org.eclipse.jgit.diff.HistogramDiff;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;

/**
 * Recorded changes as a unified diff and as a one-line-per-file summary. A step's "before" is what it
 * was made from (the bytes the dry run read), so what the question shows is what the change compares
 * when it is made.
 */
final class Diffs {

    /** Past this a content is not compared line by line: its size is shown instead. */
    static final int MAX_COMPARED_BYTES = 1 << 20;
    /** Past this the diff is cut: an approval question is read, not a file. */
    static final int MAX_DIFF_CHARS = 256 * 1024;
    /** git's rule for binary: a NUL in the first 8000 bytes (a lone CR is text, unlike JGit's RawText). */
    private static final int BINARY_PROBE = 8000;

    private Diffs() {
    }

    /** What a record shows: its diff and its one-line-per-file summary. */
    record Rendered(String diff, String summary) {
    }

    /** The diff and the summary of the recorded changes, each file compared once. */
    static Rendered render(Workspace workspace, List<Effect> effects) {
        Map<Replace, EditList> compared = new java.util.IdentityHashMap<>();
        return new Rendered(describe(workspace, effects, compared), summary(workspace, effects, compared));
    }

    private static String describe(Workspace workspace, List<Effect> effects, Map<Replace, EditList> compared) {
        StringBuilder out = new StringBuilder();
        for (Effect effect : effects) {
            for (Step step : steps(effect)) {
                String text = step instanceof Replace replace ? fileDiff(workspace, replace, compared)
                        : headline(workspace, step) + "\n";
                if (out.length() + text.length() > MAX_DIFF_CHARS) {
                    out.append("... [the diff is cut at ").append(MAX_DIFF_CHARS / 1024).append(" KiB]\n");
                    return out.toString();
                }
                out.append(text);
            }
        }
        return out.toString();
    }

    private static String summary(Workspace workspace, List<Effect> effects, Map<Replace, EditList> compared) {
        Map<Path, String> files = new LinkedHashMap<>();
        List<String> others = new ArrayList<>();
        for (Effect effect : effects) {
            for (Step step : steps(effect)) {
                if (step instanceof Replace replace) {
                    files.put(replace.file(), name(workspace, replace.file()) + counts(replace, compared));
                } else {
                    others.add(headline(workspace, step));
                }
            }
        }
        List<String> lines = new ArrayList<>(files.values());
        lines.addAll(others);
        return String.join("\n", lines);
    }

    private static List<Step> steps(Effect effect) {
        return effect instanceof Committed committed ? committed.steps() : List.of(((Direct) effect).step());
    }

    /** A path as the diff names it: relative, with control characters escaped, so a name forges no line. */
    private static String name(Workspace workspace, Path path) {
        String relative = workspace.relativize(path);
        StringBuilder out = new StringBuilder(relative.length());
        for (int i = 0; i < relative.length(); i++) {
            char c = relative.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\x%02X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean comparable(byte[] before, byte[] after) {
        return (before == null || before.length <= MAX_COMPARED_BYTES) && after.length <= MAX_COMPARED_BYTES
                && !isBinary(before) && !isBinary(after);
    }

    private static boolean isBinary(byte[] content) {
        if (content == null) {
            return false;
        }
        for (int i = 0; i < Math.min(content.length, BINARY_PROBE); i++) {
            if (content[i] == 0) {
                return true;
            }
        }
        return false;
    }

    private static String counts(Replace replace, Map<Replace, EditList> compared) {
        byte[] before = replace.before();
        byte[] after = replace.after();
        if (!comparable(before, after)) {
            return before == null ? " (new, " + after.length + " bytes)" : " (" + after.length + " bytes)";
        }
        int added = 0;
        int removed = 0;
        for (Edit edit : edits(replace, compared)) {
            added += edit.getLengthB();
            removed += edit.getLengthA();
        }
        return (before == null ? " (new)" : "") + " +" + added + " \u2212" + removed;
    }

    /**
     * The edits from {@code before} to {@code after}, by JGit's histogram diff without its fallback: a
     * region of lines repeated too often to match is one replaced block, so no content makes the
     * comparison quadratic.
     */
    private static EditList edits(Replace replace, Map<Replace, EditList> compared) {
        return compared.computeIfAbsent(replace, step -> {
            HistogramDiff histogram = new HistogramDiff();
            histogram.setFallbackAlgorithm(null);
            return histogram.diff(RawTextComparator.DEFAULT,
                    new RawText(step.before() == null ? new byte[0] : step.before()), new RawText(step.after()));
        });
    }

    /** A step that is not a new content: a delete with its size, a folder, a mode. */
    private static String headline(Workspace workspace, Step step) {
        if (step instanceof Delete delete) {
            return "delete " + name(workspace, delete.file())
                    + (delete.before() == null ? "" : " (" + delete.before().length + " bytes)");
        }
        if (step instanceof MakeFolders folders) {
            return "create folder " + name(workspace, folders.folder()) + "/";
        }
        Permissions permissions = (Permissions) step;
        return "mode " + PosixFilePermissions.toString(permissions.permissions()) + " for "
                + name(workspace, permissions.file());
    }

    private static String fileDiff(Workspace workspace, Replace replace, Map<Replace, EditList> compared) {
        String name = name(workspace, replace.file());
        byte[] before = replace.before();
        byte[] after = replace.after();
        StringBuilder out = new StringBuilder();
        out.append("--- ").append(before == null ? "/dev/null" : "a/" + name).append('\n');
        out.append("+++ b/").append(name).append('\n');
        if (!comparable(before, after)) {
            return out.append(isBinary(before) || isBinary(after) ? "Binary file: " : "Too large to compare line by line: ")
                    .append(before == null ? "new" : before.length + " bytes").append(" -> ").append(after.length)
                    .append(" bytes\n").toString();
        }
        ByteArrayOutputStream hunks = new ByteArrayOutputStream();
        try (DiffFormatter formatter = new DiffFormatter(hunks)) {
            formatter.setContext(3);
            formatter.format(edits(replace, compared), new RawText(before == null ? new byte[0] : before),
                    new RawText(after));
        } catch (IOException inMemory) {
            throw new IllegalStateException(inMemory);
        }
        String text = decode(hunks.toByteArray());
        return out.append(text.isEmpty() ? "(no change to its content)\n" : text).toString();
    }

    /** UTF-8 text with every byte that is not UTF-8 shown as {@code \xE9}, so no two changes read the same. */
    static String decode(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length * 4 + 16);
        while (true) {
            CoderResult result = decoder.decode(in, out, true);
            if (result.isUnderflow()) {
                break;
            }
            for (int i = 0; i < result.length(); i++) {
                out.put(String.format("\\x%02X", in.get() & 0xff));
            }
        }
        decoder.flush(out);
        out.flip();
        return out.toString();
    }
}
