package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The user's global excludes file applies inside a repository as git applies it. */
class GlobalExcludesTest {

    @TempDir
    Path temp;

    private Path repository() throws Exception {
        Path repo = Files.createDirectories(temp.resolve("repo"));
        git(repo, Map.of(), "init", "-q");
        for (String name : List.of("a.log", "keep.log", "b.tmp", "src/c.log", "src/Main.java")) {
            Files.createDirectories(repo.resolve(name).getParent());
            Files.writeString(repo.resolve(name), "x\n");
        }
        Files.writeString(repo.resolve(".git/info/exclude"), "!keep.log\n");
        return repo;
    }

    @Test
    void theDefaultXdgIgnoreFileAppliesAndInfoExcludeWinsOverIt() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Files.createDirectories(home.resolve(".config/git"));
        Files.writeString(home.resolve(".config/git/ignore"), "*.log\n");
        Path repo = repository();
        IgnoreRules rules = IgnoreRules.forRoot(repo, GlobalExcludes.of(home, Map.of()));
        assertTrue(rules.isIgnored(repo.resolve("a.log"), false));
        assertTrue(rules.isIgnored(repo.resolve("src/c.log"), false));
        assertFalse(rules.isIgnored(repo.resolve("keep.log"), false), ".git/info/exclude is consulted first");
        assertFalse(rules.isIgnored(repo.resolve("b.tmp"), false));
        assertEquals(gitLsFiles(repo, home), walked(repo, home), "the same files as git ls-files");
    }

    @Test
    void coreExcludesFileInGitconfigReplacesTheDefault() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Files.createDirectories(home.resolve(".config/git"));
        Files.writeString(home.resolve(".config/git/ignore"), "*.log\n");
        Files.writeString(home.resolve("my-excludes"), "*.tmp\n");
        Files.writeString(home.resolve(".gitconfig"), "[core]\n\texcludesFile = ~/my-excludes\n");
        Path repo = repository();
        IgnoreRules rules = IgnoreRules.forRoot(repo, GlobalExcludes.of(home, Map.of()));
        assertTrue(rules.isIgnored(repo.resolve("b.tmp"), false));
        assertFalse(rules.isIgnored(repo.resolve("a.log"), false), "the default file is not read when one is configured");
        assertEquals(gitLsFiles(repo, home), walked(repo, home));
    }

    @Test
    void outsideARepositoryNoExcludesFileApplies() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Files.createDirectories(home.resolve(".config/git"));
        Files.writeString(home.resolve(".config/git/ignore"), "*.log\n");
        Path plain = Files.createDirectories(temp.resolve("plain"));
        Files.writeString(plain.resolve("a.log"), "x\n");
        assertFalse(IgnoreRules.forRoot(plain, GlobalExcludes.of(home, Map.of())).isIgnored(plain.resolve("a.log"), false));
    }

    private List<String> walked(Path repo, Path home) throws Exception {
        IgnoreRules rules = IgnoreRules.forRoot(repo, GlobalExcludes.of(home, Map.of()));
        try (Stream<Path> files = Files.walk(repo)) {
            return files.filter(Files::isRegularFile).filter(p -> !repo.relativize(p).startsWith(".git"))
                    .filter(p -> !rules.isIgnored(p, false)).map(p -> IgnoreRules.slashes(repo.relativize(p)))
                    .sorted().toList();
        }
    }

    private static List<String> gitLsFiles(Path repo, Path home) throws Exception {
        String out = git(repo, Map.of("HOME", home.toString()), "ls-files", "--others", "--cached", "--exclude-standard");
        return Arrays.stream(out.split("\n")).filter(s -> !s.isBlank()).sorted().toList();
    }

    private static String git(Path dir, Map<String, String> environment, String... args) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(Stream.concat(Stream.of("git"), Arrays.stream(args)).toList())
                .directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().remove("XDG_CONFIG_HOME");
        builder.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        builder.environment().putAll(environment);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), out);
        return out;
    }
}
