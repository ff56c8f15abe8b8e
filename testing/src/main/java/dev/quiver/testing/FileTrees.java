package dev.quiver.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** A folder as a test compares it before and after: what must come back byte for byte. */
public final class FileTrees {

    private FileTrees() {
    }

    /**
     * Every entry below a folder that {@code keep} keeps (given its path relative to the folder): a
     * file as its mode and bytes in hex, a link as its text (never followed), a folder as such.
     */
    public static Map<String, String> of(Path folder, Predicate<String> keep) throws IOException {
        Map<String, String> tree = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : paths.filter(p -> !p.equals(folder)).toList()) {
                String relative = folder.relativize(path).toString();
                if (!keep.test(relative)) {
                    continue;
                }
                if (Files.isSymbolicLink(path)) {
                    tree.put(relative, "link " + Files.readSymbolicLink(path));
                } else if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                    tree.put(relative, "folder");
                } else {
                    tree.put(relative, PosixFilePermissions.toString(Files.getPosixFilePermissions(path,
                            LinkOption.NOFOLLOW_LINKS)) + " " + HexFormat.of().formatHex(Files.readAllBytes(path)));
                }
            }
        }
        return tree;
    }
}
