package dev.quiver.tools.extra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.tools.extra.CheckDiscovery.Check;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckDiscoveryTest {

    @TempDir
    Path root;

    private Workspace workspace;

    @BeforeEach
    void open() throws Exception {
        workspace = new WorkspaceFactoryComponent().open(root);
    }

    private void write(String path, String text) throws Exception {
        Files.createDirectories(root.resolve(path).getParent());
        Files.writeString(root.resolve(path), text);
    }

    private List<String> commands() throws ToolException {
        return CheckDiscovery.discover(workspace).checks().stream().map(Check::command).toList();
    }

    @Test
    void agentsMdBackticksAndDollarLinesThatAreChecks() throws Exception {
        write("AGENTS.md", """
                # Working here
                Build with `./mvnw -q verify` before committing; never `./mvnw install` on CI.
                Code lives in `src/main/java` and `README.md` explains more.
                Lint with `npm run lint:css` and `cargo fmt --check`.
                Set up with `npm install`, then start the server with `npm run dev`.

                ```sh
                $ go test ./...
                $ go run ./cmd/server
                go vet ./...
                ```
                $ CI=1 pytest -q tests/
                - $ make test
                Also `./mvnw -q verify` again, and `eslint --fix .` to repair.
                """);
        assertEquals(List.of("./mvnw -q verify", "npm run lint:css", "cargo fmt --check", "go test ./...",
                "CI=1 pytest -q tests/", "make test"), commands());
        List<String> names = CheckDiscovery.discover(workspace).checks().stream().map(Check::name).toList();
        // "test" would name two of them, so those two go by their whole command
        assertEquals(List.of("verify", "lint:css", "fmt", "go test ./...", "pytest", "make test"), names);
    }

    @Test
    void whatLooksLikeACheck() {
        for (String check : List.of("mvn -q verify", "./gradlew check", "npm test", "bun run typecheck", "uv run pytest",
                "python -m pytest", "go vet ./...", "cargo clippy -- -D warnings", "scripts/test.sh", "tsc --noEmit",
                "npm run test:unit", "black --check .", "make lint")) {
            assertTrue(CheckDiscovery.looksLikeCheck(check), check);
        }
        for (String other : List.of("npm install", "npm ci", "git status", "rm -rf build", "make", "npm run dev",
                "npm start", "./deploy.sh", "mvn deploy", "cargo fmt", "eslint --fix .", "prettier --write .",
                "docker build .", "npm test -- --watch", "src/main/java")) {
            assertFalse(CheckDiscovery.looksLikeCheck(other), other);
        }
    }

    @Test
    void agentsMdWinsOverEverythingElse() throws Exception {
        write("AGENTS.md", "Run `npm test` only.\n");
        write("package.json", "{\"scripts\": {\"test\": \"vitest\", \"lint\": \"eslint .\"}}");
        write("pom.xml", "<project/>");
        assertEquals(List.of("npm test"), commands());
        assertEquals("AGENTS.md", CheckDiscovery.discover(workspace).source());
    }

    @Test
    void packageScriptsInTheirOrderWithNpmOrBun() throws Exception {
        write("AGENTS.md", "Nothing to run here.\n");
        write("package.json", """
                {"name": "app", "scripts": {"dev": "vite", "build": "vite build", "prelint": "echo", "lint": "eslint .",
                 "test:e2e": "playwright test", "test": "vitest run", "format": "prettier --write .",
                 "typecheck": "tsc", "my script": "true"}, "devDependencies": {"x": "1"}}""");
        List<Check> checks = CheckDiscovery.discover(workspace).checks();
        assertEquals(List.of("npm run test", "npm run typecheck", "npm run lint", "npm run build", "npm run dev",
                "npm run test:e2e", "npm run format", "npm run 'my script'"), checks.stream().map(Check::command).toList());
        assertEquals(List.of("test", "typecheck", "lint", "build", "test:e2e"),
                checks.stream().filter(Check::inAll).map(Check::name).toList());
        write("bun.lock", "");
        assertEquals("bun run test", commands().get(0));
    }

    @Test
    void brokenPackageJsonIsReported() throws Exception {
        write("package.json", "{\"scripts\": {\"test\": ");
        ToolException error = assertThrows(ToolException.class, () -> CheckDiscovery.discover(workspace));
        assertTrue(error.getMessage().startsWith("package.json is not valid JSON ("), error.getMessage());
    }

    @Test
    void toolchainDefaults() throws Exception {
        assertEquals(List.of(), commands());
        write("pom.xml", "<project/>");
        write("build.gradle.kts", "");
        write("Cargo.toml", "");
        write("go.mod", "module x\n");
        write("pyproject.toml", "");
        assertEquals(List.of("mvn -q verify", "gradle check", "cargo test", "go test ./...", "pytest"), commands());
        write("mvnw", "#!/bin/sh\n");
        write("gradlew", "#!/bin/sh\n");
        assertEquals(List.of("./mvnw -q verify", "./gradlew check", "cargo test", "go test ./...", "pytest"), commands());
        assertEquals(List.of("maven", "gradle", "cargo", "go", "pytest"),
                CheckDiscovery.discover(workspace).checks().stream().map(Check::name).toList());
    }
}
