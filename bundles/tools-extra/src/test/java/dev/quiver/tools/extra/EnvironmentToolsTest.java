package dev.quiver.tools.extra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** env_info over a laid-out system folder and PATH, count_tokens, current_time. */
class EnvironmentToolsTest {

    @TempDir
    Path root;

    /** An executable that would leave a mark if anything ran it. */
    private Path program(Path file) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/bin/sh\ntouch " + root.resolve("ran") + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    @Test
    void envInfoReadsVersionsFromFilesAndRunsNothing() throws Exception {
        Path system = root.resolve("system");
        Files.createDirectories(system.resolve("etc"));
        Files.writeString(system.resolve("etc/os-release"), "NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n");
        Files.createDirectories(system.resolve("var/lib/dpkg"));
        Files.writeString(system.resolve("var/lib/dpkg/status"), """
                Package: git
                Status: install ok installed
                Version: 1:2.39.5-0+deb12u2

                Package: python3
                Status: deinstall ok config-files
                Version: 3.11.2-1+b1
                """);
        Path jdk = root.resolve("opt/jdk");
        program(jdk.resolve("bin/java"));
        Files.writeString(jdk.resolve("release"), "IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"21.0.4\"\n");
        Path go = root.resolve("opt/go");
        program(go.resolve("bin/go"));
        Files.writeString(go.resolve("VERSION"), "go1.22.5\ntime 2024-06-27\n");
        Path node = root.resolve("opt/node");
        program(node.resolve("bin/node"));
        Files.createDirectories(node.resolve("include/node"));
        Files.writeString(node.resolve("include/node/node_version.h"),
                "#define NODE_MAJOR_VERSION 20\n#define NODE_MINOR_VERSION 11\n#define NODE_PATCH_VERSION 1\n");
        Path npmCli = program(node.resolve("lib/node_modules/npm/bin/npm-cli.js"));
        Files.writeString(node.resolve("lib/node_modules/npm/package.json"), "{\"name\": \"npm\", \"version\": \"10.2.4\"}");
        Path bin = root.resolve("bin");
        Files.createDirectories(bin);
        Files.createSymbolicLink(bin.resolve("npm"), npmCli);
        program(root.resolve("opt/apache-maven-3.9.6/bin/mvn"));
        Files.createSymbolicLink(bin.resolve("mvn"), root.resolve("opt/apache-maven-3.9.6/bin/mvn"));
        program(bin.resolve("cargo"));
        Path pyenv = root.resolve("pyenv");
        program(pyenv.resolve("shims/python3"));
        Files.writeString(pyenv.resolve("version"), "3.12.4\n");
        Path debianMaven = root.resolve("usr-share-maven");
        program(debianMaven.resolve("bin/gradle"));
        Files.createDirectories(debianMaven.resolve("lib"));
        Files.writeString(debianMaven.resolve("lib/gradle-launcher-x.jar"), "not a version");
        String path = String.join(":", bin.toString(), jdk.resolve("bin").toString(), go.resolve("bin").toString(),
                node.resolve("bin").toString(), pyenv.resolve("shims").toString(), debianMaven.resolve("bin").toString(),
                "relative/ignored");
        String text = EnvInfoTool.describe(Map.of("PATH", path, "SHELL", "/bin/bash"), system);
        assertTrue(text.startsWith("OS: Debian GNU/Linux 12 (bookworm); Linux "), text);
        assertTrue(text.contains("\n  java: " + jdk.resolve("bin/java") + ", 21.0.4 (from its installation's files)\n"), text);
        assertTrue(text.contains("\n  go: " + go.resolve("bin/go") + ", 1.22.5 (from its installation's files)\n"), text);
        assertTrue(text.contains("\n  node: " + node.resolve("bin/node") + ", 20.11.1 (from its installation's files)\n"), text);
        assertTrue(text.contains("\n  npm: " + bin.resolve("npm") + ", 10.2.4 (from its installation's files)\n"), text);
        assertTrue(text.contains("\n  mvn: " + bin.resolve("mvn") + ", 3.9.6 (from its path "), text);
        assertTrue(text.contains("\n  cargo: " + bin.resolve("cargo") + ", version unknown\n"), text);
        assertTrue(text.contains("\n  python: " + pyenv.resolve("shims/python3") + ", 3.12.4 (from its installation's "
                + "files)\n"), text);
        assertTrue(text.contains("\n  gradle: " + debianMaven.resolve("bin/gradle") + ", version unknown\n"),
                "a jar name that holds no version is no version: " + text);
        assertTrue(text.contains("Not on the PATH: rust, ruby, "), text);
        assertTrue(!Files.exists(root.resolve("ran")), "env_info ran a program");
        assertEquals(Map.of("git", "2.39.5"), EnvInfoTool.debianVersions(system.resolve("var/lib/dpkg/status")),
                "only installed packages, without epoch or Debian revision");
    }

    @Test
    void envInfoIsKeptForTheSessionUntilRefreshed() throws Exception {
        EnvInfoTool tool = new EnvInfoTool();
        ToolTestContext context = new ToolTestContext(root);
        String first = tool.call(Arguments.empty(), context).text();
        assertSame(first, tool.call(Arguments.empty(), context).text());
        String again = tool.call(Arguments.of(Map.of("refresh", true)), context).text();
        assertEquals(first, again);
        assertTrue(first != again, "refresh looks again");
        assertTrue(first.contains("Quiver runs on Java " + System.getProperty("java.version")), first);
    }

    @Test
    void countTokensCountsWithARealTokenizerAndNamesIt() throws Exception {
        ToolTestContext context = new ToolTestContext(root);
        CountTokensTool tool = new CountTokensTool();
        String hello = tool.call(Arguments.of(Map.of("text", "hello world")), context).text();
        assertTrue(hello.startsWith("2 tokens in the text (11 characters), by o200k_base (GPT-4o and later). Other "
                + "models"), hello);
        Files.writeString(root.resolve("a.txt"), "The quick brown fox jumps over the lazy dog.\n");
        String file = tool.call(Arguments.of(Map.of("path", "a.txt", "encoding", "cl100k_base")), context).text();
        assertTrue(file.startsWith("10 tokens in a.txt (45 characters), by cl100k_base"), file);
        assertTrue(assertThrows(ToolException.class, () -> tool.call(Arguments.of(Map.of("text", "x", "encoding",
                "gpt5")), context)).getMessage().startsWith("Unknown encoding \"gpt5\". Use one of: "));
        Files.writeString(root.resolve(".env"), "TOKEN=hunter2\n");
        assertEquals(".env holds secrets by its name; count_tokens does not read it.", assertThrows(ToolException.class,
                () -> tool.call(Arguments.of(Map.of("path", ".env")), context)).getMessage());
        Files.write(root.resolve("b.bin"), new byte[] {0, 1});
        assertTrue(assertThrows(ToolException.class, () -> tool.call(Arguments.of(Map.of("path", "b.bin")), context))
                .getMessage().contains("binary"));
        String huge = "a".repeat(CountTokensTool.MAX_CHARS + 1);
        assertTrue(assertThrows(ToolException.class, () -> tool.call(Arguments.of(Map.of("text", huge)), context))
                .getMessage().startsWith("the text has " + huge.length() + " characters, more than the"));
    }

    @Test
    void currentTimeGivesLocalAndUtcWithTheZone() throws Exception {
        Clock clock = Clock.fixed(Instant.parse("2026-03-01T12:30:05Z"), ZoneId.of("Asia/Tokyo"));
        assertEquals("""
                Local: Sunday 2026-03-01 21:30:05 +09:00 (Asia/Tokyo, Japan Time)
                UTC: Sunday 2026-03-01 12:30:05
                ISO 8601: 2026-03-01T21:30:05+09:00
                Unix time: 1772368205""", new CurrentTimeTool(clock).call(Arguments.empty(), null).text());
    }
}
