package dev.quiver.kernel.checkpoint;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;

/**
 * Reads the store's trees, each once per undo and each checked as git's fsck checks one: a tree
 * whose names include {@code ..}, {@code .git} or a slash, or that is out of order, is damage, never
 * a path to write to.
 */
final class Trees {

    /** A file of a tree: its git mode and its blob. */
    record Entry(int mode, ObjectId id) {

        boolean isLink() {
            return (mode & FileMode.TYPE_MASK) == FileMode.TYPE_SYMLINK;
        }

        boolean isExecutable() {
            return mode == FileMode.EXECUTABLE_FILE.getBits();
        }
    }

    /** What happened to one path between two trees; {@code null} for absent. */
    record Change(Entry before, Entry after) {
    }

    private static final long MAX_TREE_BYTES = 64L << 20;

    private final LooseObjects objects;
    private final ObjectChecker checker = new ObjectChecker();
    private final Map<ObjectId, Map<String, Entry>> read = new HashMap<>();

    Trees(LooseObjects objects) {
        this.objects = objects;
    }

    /** A tree's entries by name, sub-trees included (with {@link FileMode#TREE}). */
    Map<String, Entry> entries(ObjectId tree) throws IOException {
        Map<String, Entry> known = read.get(tree);
        if (known != null) {
            return known;
        }
        byte[] raw = objects.read(tree, Constants.OBJ_TREE, MAX_TREE_BYTES);
        try {
            checker.checkTree(tree, raw);
        } catch (CorruptObjectException e) {
            throw new LooseObjects.StoreDamaged(tree, "is not a valid tree (" + e.getMessage() + ")");
        }
        Map<String, Entry> entries = new LinkedHashMap<>();
        CanonicalTreeParser parser = new CanonicalTreeParser();
        parser.reset(raw);
        while (!parser.eof()) {
            entries.put(parser.getEntryPathString(), new Entry(parser.getEntryRawMode(), parser.getEntryObjectId()));
            parser.next(1);
        }
        read.put(tree, entries);
        return entries;
    }

    /** The file at a path of a tree, or null when there is none (a folder is none). */
    Entry lookup(ObjectId tree, String path) throws IOException {
        ObjectId current = tree;
        String[] names = path.split("/");
        for (int i = 0; i < names.length; i++) {
            Entry entry = entries(current).get(names[i]);
            if (entry == null) {
                return null;
            }
            boolean folder = entry.mode() == FileMode.TREE.getBits();
            if (i == names.length - 1) {
                return folder ? null : entry;
            }
            if (!folder) {
                return null;
            }
            current = entry.id();
        }
        return null;
    }

    /** Whether a folder holds anything in a tree. */
    boolean hasFolder(ObjectId tree, String folder) throws IOException {
        ObjectId current = tree;
        for (String name : folder.split("/")) {
            Entry entry = entries(current).get(name);
            if (entry == null || entry.mode() != FileMode.TREE.getBits()) {
                return false;
            }
            current = entry.id();
        }
        return true;
    }

    /** Every file that differs between two trees, by path; sub-trees that are the same are not read. */
    Map<String, Change> diff(ObjectId before, ObjectId after) throws IOException {
        Map<String, Change> changes = new LinkedHashMap<>();
        diff(before, after, "", changes);
        return changes;
    }

    private void diff(ObjectId before, ObjectId after, String prefix, Map<String, Change> changes) throws IOException {
        if (before != null && before.equals(after)) {
            return;
        }
        Map<String, Entry> left = before == null ? Map.of() : entries(before);
        Map<String, Entry> right = after == null ? Map.of() : entries(after);
        TreeSet<String> names = new TreeSet<>(left.keySet());
        names.addAll(right.keySet());
        for (String name : names) {
            Entry a = left.get(name);
            Entry b = right.get(name);
            String path = prefix + name;
            ObjectId folderA = folder(a);
            ObjectId folderB = folder(b);
            if (folderA != null || folderB != null) {
                diff(folderA, folderB, path + "/", changes);
            }
            Entry fileA = folderA == null ? a : null;
            Entry fileB = folderB == null ? b : null;
            if (fileA != null || fileB != null) {
                if (fileA == null || !fileA.equals(fileB)) {
                    changes.put(path, new Change(fileA, fileB));
                }
            }
        }
    }

    private static ObjectId folder(Entry entry) {
        return entry != null && entry.mode() == FileMode.TREE.getBits() ? entry.id() : null;
    }

    /** The paths a {@code skipped} blob lists, with why each was not recorded. */
    Map<String, String> skipped(java.util.Optional<ObjectId> list) throws IOException {
        if (list.isEmpty()) {
            return Map.of();
        }
        Map<String, String> skipped = new HashMap<>();
        String text = new String(objects.read(list.get(), Constants.OBJ_BLOB, MAX_TREE_BYTES),
                java.nio.charset.StandardCharsets.UTF_8);
        String[] fields = text.split("\0");
        for (int i = 0; i + 1 < fields.length; i += 2) {
            skipped.put(fields[i], fields[i + 1]);
        }
        return skipped;
    }
}
