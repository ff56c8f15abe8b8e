package dev.quiver.tools.git;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A repository built with the real git CLI, isolated from the user's and the system's configuration:
 * two commits by two authors, then a staged change with a later unstaged one, a staged-only change, an
 * unstaged change, a deletion, a staged rename, an untracked file and a changed secret file.
 */
final class GitFixture {

    static final String SECRET_OLD = "API_KEY=first-secret-value";
    static final String SECRET_NEW = "API_KEY=second-secret-value";

    private GitFixture() {
    }

    static void build(Path root) throws IOException, InterruptedException {
        git(root, null, "init", "-q", "-b", "main");
        write(root, "a.txt", "one\ntwo\nthree\n");
        write(root, "old.txt", "a file that will be renamed\nwith enough lines\nto be found similar\nby rename detection\n");
        write(root, "gone.txt", "soon deleted\n");
        write(root, "staged.txt", "before\n");
        write(root, "mod.txt", "unchanged line\nplain before\n");
        write(root, ".env", SECRET_OLD + "\n");
        write(root, "src/Main.java", "class Main {}\n");
        git(root, null, "add", "-A");
        git(root, "Alice Archer <alice@example.com>", "commit", "-q", "-m", "Add the first files");
        write(root, "a.txt", "one\nTWO by bob\nthree\n");
        git(root, null, "add", "a.txt");
        git(root, "Bob Baker <bob@example.com>", "commit", "-q", "-m", "Shout line two\n\nA longer body\nover two lines.");
        // a staged change, then a later unstaged one on the same file
        write(root, "a.txt", "one\nTWO by bob\nthree\nfour staged\n");
        git(root, null, "add", "a.txt");
        write(root, "a.txt", "one\nTWO by bob\nthree\nfour staged\nfive unstaged\n");
        write(root, "staged.txt", "after\n");
        git(root, null, "add", "staged.txt");
        write(root, "mod.txt", "unchanged line\nplain after\n");
        Files.delete(root.resolve("gone.txt"));
        git(root, null, "mv", "old.txt", "renamed.txt");
        write(root, "new.txt", "untracked\n");
        write(root, ".env", SECRET_NEW + "\n");
    }

    static void write(Path root, String relative, String content) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content, StandardCharsets.UTF_8);
    }

    /** Runs git with a fixed argument list; {@code author} sets both author and committer. */
    static String git(Path directory, String author, String... args) throws IOException, InterruptedException {
        return git(directory, author, Map.of(), args);
    }

    /** As {@link #git(Path, String, String...)}, with more environment, such as {@code GIT_COMMITTER_DATE}. */
    static String git(Path directory, String author, Map<String, String> extraEnv, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        env.put("HOME", "/nonexistent-quiver-test");
        env.put("XDG_CONFIG_HOME", "/nonexistent-quiver-test");
        String name = "Test";
        String email = "test@example.com";
        if (author != null) {
            name = author.substring(0, author.indexOf(" <"));
            email = author.substring(author.indexOf('<') + 1, author.indexOf('>'));
        }
        env.put("GIT_AUTHOR_NAME", name);
        env.put("GIT_AUTHOR_EMAIL", email);
        env.put("GIT_COMMITTER_NAME", name);
        env.put("GIT_COMMITTER_EMAIL", email);
        env.putAll(extraEnv);
        Process process = builder.start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), () -> String.join(" ", command) + ": " + out);
        return out;
    }
}
