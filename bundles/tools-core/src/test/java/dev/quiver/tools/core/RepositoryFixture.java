package dev.quiver.tools.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A git repository for the agreement tests: nested .gitignore files, negations, directory-only and
 * anchored patterns, {@code **}, an info/exclude file, and text worth searching in every kept and
 * ignored file. No links, secrets or binaries that git, ripgrep and Quiver are meant to treat differently.
 */
final class RepositoryFixture {

    private RepositoryFixture() {
    }

    static void build(Path root) throws IOException, InterruptedException {
        Processes.git(root, "init", "-q");
        write(root, ".gitignore", String.join("\n",
                "# build output",
                "*.log",
                "!keep.log",
                "build/",
                "/root-only.txt",
                "**/cache/",
                "docs/**/draft-*.md",
                "src/generated.txt",
                "*.tmp",
                "!important.tmp",
                ""));
        write(root, "src/.gitignore", "!debug.log\nlocal/\n/anchored.txt\n*.bak\n");
        write(root, "src/main/.gitignore", "!*.bak\nsecret-*\n");
        Files.writeString(root.resolve(".git/info/exclude"), "personal.txt\n");
        String[] files = {
            "README.md", "app.log", "keep.log", "debug.log",
            "root-only.txt", "nested/root-only.txt",
            "build/classes/App.class.txt", "lib/build/x.o", "lib/build.txt",
            "cache/blob", "lib/cache/blob", "lib/cache.txt",
            "docs/guide.md", "docs/draft-one.md", "docs/a/b/draft-two.md", "docs/a/final.md",
            "src/generated.txt", "lib/src/generated.txt",
            "x.tmp", "important.tmp", "sub/important.tmp", "sub/y.tmp",
            "src/debug.log", "src/other.log", "src/local/thing.txt", "src/anchored.txt",
            "src/main/anchored.txt", "src/a.bak", "src/main/b.bak", "src/main/java/App.java",
            "src/main/java/c.bak", "src/main/secret-key.txt", "src/main/java/secret-too.txt",
            "src/main/java/keep.log", "personal.txt", "sub/personal.txt", "name with spaces.txt",
            ".hidden/config.txt", "deep/a/b/c/d/e/f.txt",
        };
        for (String file : files) {
            write(root, file, "needle in " + file + "\nplain line\nNeedle again, TODO(later) x := 42;\n"
                    + "tail needle\n");
        }
        Files.write(root.resolve("latin1.txt"), "caf\u00e9 needle\n".getBytes(StandardCharsets.ISO_8859_1));
        Files.write(root.resolve("empty.txt"), new byte[0]);
        write(root, "unicode.txt", "gr\u00fc\u00dfe needle \u2603\nna\u00efve\n");
        Processes.git(root, "add", "README.md", "src/main/java/App.java", "docs/guide.md");
    }

    static void write(Path root, String relative, String content) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }
}
