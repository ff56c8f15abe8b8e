package dev.quiver.workspace;

import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The process {@link KilledStructuralChangeTest} kills: turns a workspace from state A to state B and
 * back, again and again, each turn ONE change through the real transaction that adds, deletes, moves
 * and replaces files, deletes a folder tree file by file and folder by folder, copies a folder and
 * moves a folder. Arguments: the workspace root and its state folder.
 *
 * <p>State A: {@code keep/K<i>.txt} at A, {@code gone.txt}, {@code m/a.txt}, the tree {@code tree/},
 * {@code src/} and {@code dirA/}. State B: {@code keep/K<i>.txt} at B, {@code new.txt}, {@code m/b.txt},
 * no {@code tree/}, {@code src/} and its copy {@code copy/}, and {@code dirB/} (dirA moved).
 */
public final class StructuralChangeLoop {

    static final int KEPT = 12;
    static final List<String> TREE = List.of("tree/x/y/f0.txt", "tree/x/y/f1.txt", "tree/x/f2.txt", "tree/z/g.txt",
            "tree/h.txt");
    /** Many folders, so that a kill often falls while the copy makes one. */
    static final List<String> SOURCE = java.util.stream.IntStream.range(0, 40)
            .mapToObj(i -> "src/d" + (i % 8) + (i % 3 == 0 ? "/deep" + i : "") + "/s" + i + ".txt").toList();

    private StructuralChangeLoop() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        Workspace workspace = JailedWorkspace.open(root, Path.of(args[1]));
        System.out.println("started");
        System.out.flush();
        while (true) {
            turn(workspace, root);
        }
    }

    static byte[] content(String name, char version) {
        StringBuilder text = new StringBuilder(name + " at " + version + "\n");
        for (int line = 0; line < 100; line++) {
            text.append("line ").append(line).append(" of ").append(name).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Makes state A with plain file calls. */
    static void seed(Path root) throws IOException {
        for (int i = 0; i < KEPT; i++) {
            put(root, "keep/K" + i + ".txt", content("keep" + i, 'A'));
        }
        put(root, "gone.txt", content("gone", 'A'));
        put(root, "m/a.txt", content("moved", 'A'));
        for (String name : TREE) {
            put(root, name, content(name, 'A'));
        }
        for (String name : SOURCE) {
            put(root, name, content(name, 'A'));
        }
        put(root, "dirA/in/h.txt", content("dir", 'A'));
        put(root, "dirA/top.txt", content("dirtop", 'A'));
    }

    private static void put(Path root, String name, byte[] content) throws IOException {
        Files.createDirectories(root.resolve(name).getParent());
        Files.write(root.resolve(name), content);
    }

    /** One change from the state the tree is in to the other one. */
    static void turn(Workspace workspace, Path root) throws IOException {
        boolean toB = Files.exists(root.resolve("dirA"));
        char from = toB ? 'A' : 'B';
        char to = toB ? 'B' : 'A';
        Workspace.Change change = workspace.change("apply_patch");
        for (int i = 0; i < KEPT; i++) {
            change.replace(root.resolve("keep/K" + i + ".txt"), content("keep" + i, from), content("keep" + i, to));
        }
        if (toB) {
            change.replace(root.resolve("new.txt"), null, content("new", 'B'));
            change.delete(root.resolve("gone.txt"), content("gone", 'A'));
            change.move(root.resolve("m/a.txt"), root.resolve("m/b.txt"));
            deleteTree(change, root.resolve("tree"));
            change.copy(root.resolve("src"), root.resolve("copy"));
            change.move(root.resolve("dirA"), root.resolve("dirB"));
        } else {
            change.delete(root.resolve("new.txt"), content("new", 'B'));
            change.replace(root.resolve("gone.txt"), null, content("gone", 'A'));
            change.move(root.resolve("m/b.txt"), root.resolve("m/a.txt"));
            for (String name : TREE) {
                change.replace(root.resolve(name), null, content(name, 'A'));
            }
            deleteTree(change, root.resolve("copy"));
            change.move(root.resolve("dirB"), root.resolve("dirA"));
        }
        change.commit();
    }

    /** A folder deleted as a recursive delete does it: each file with what it holds, then each folder, deepest first. */
    private static void deleteTree(Workspace.Change change, Path folder) throws IOException {
        try (Stream<Path> all = Files.walk(folder)) {
            for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
                change.delete(path, Files.isDirectory(path) ? null : Files.readAllBytes(path));
            }
        }
    }
}
