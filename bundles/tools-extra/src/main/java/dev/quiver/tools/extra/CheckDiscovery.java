package dev.quiver.tools.extra;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a project's own check commands, from the first source that names any:
 * <ol>
 *   <li>{@code AGENTS.md}: commands in backticks and lines starting with {@code $ }, where the
 *       command looks like a check (see {@link #looksLikeCheck});</li>
 *   <li>{@code package.json} scripts: {@code test}, {@code typecheck}, {@code check}, {@code lint},
 *       {@code build}, then the rest in file order, run with {@code bun run} when {@code bun.lock}
 *       exists, else {@code npm run};</li>
 *   <li>toolchain defaults: {@code mvn -q verify} (or {@code ./mvnw}), {@code ./gradlew check},
 *       {@code cargo test}, {@code go test ./...}, {@code pytest}.</li>
 * </ol>
 */
final class CheckDiscovery {

    /** One check: how {@code target} names it, what runs, and whether {@code all} runs it. */
    record Check(String name, String command, boolean inAll) {
    }

    /** What was found and where. */
    record Found(String source, List<Check> checks) {
    }

    private static final List<String> FIRST_SCRIPTS = List.of("test", "typecheck", "check", "lint", "build");
    private static final Set<String> RUNNERS = Set.of("npm", "pnpm", "yarn", "bun", "npx", "bunx", "deno", "node",
            "mvn", "mvnw", "gradle", "gradlew", "cargo", "go", "make", "just", "pytest", "python", "python3", "uv",
            "poetry", "tox", "nox", "hatch", "pdm", "ruff", "mypy", "pyright", "tsc", "eslint", "prettier", "black",
            "flake8", "pylint", "golangci-lint", "staticcheck", "shellcheck", "dotnet", "swift", "sbt", "mix", "rake",
            "bundle", "rspec", "phpunit", "composer", "ctest", "cmake", "bazel", "nx", "turbo", "zig", "stack",
            "cabal", "lein", "dart", "flutter", "vitest", "jest", "playwright", "biome");
    private static final Set<String> CHECK_WORDS = Set.of("test", "tests", "check", "checks", "lint", "verify",
            "typecheck", "type", "types", "tsc", "vet", "clippy", "spec", "specs", "e2e", "ci", "validate", "build",
            "pytest", "mypy", "pyright", "ruff", "eslint", "flake8", "pylint", "shellcheck", "golangci", "staticcheck",
            "rspec", "phpunit", "ctest", "vitest", "jest", "biome");
    /** Words that make a command something other than a check, whatever else it says. */
    private static final Set<String> SIDE_EFFECTS = Set.of("install", "publish", "deploy", "release", "push",
            "uninstall", "upgrade", "login", "logout", "init", "dev", "start", "serve", "watch", "fix", "write");
    private static final Pattern BACKTICKS = Pattern.compile("(?<!`)`([^`\\n]+)`(?!`)");
    private static final Pattern DOLLAR = Pattern.compile("^\\s*(?:[-*>]\\s*)?\\$\\s+(.+?)\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=\\S*");
    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9:_.@/-]+");
    /** A word that can name a check: not an option, a path, an assignment or shell syntax. */
    private static final Pattern SHORT_NAME = Pattern.compile("[A-Za-z0-9@_][A-Za-z0-9:_@.-]*");

    private CheckDiscovery() {
    }

    /** The checks of the workspace root; an empty list when there are none. */
    static Found discover(Workspace workspace) throws ToolException {
        Path root = workspace.root();
        List<String> agents = agentsCommands(workspace);
        if (!agents.isEmpty()) {
            return new Found("AGENTS.md", named(agents));
        }
        List<Check> scripts = packageScripts(workspace, root);
        if (!scripts.isEmpty()) {
            return new Found("package.json", scripts);
        }
        return new Found("the project's toolchain", toolchains(root));
    }

    /** Commands in backticks and {@code $ } lines of AGENTS.md that look like checks, in order, once each. */
    static List<String> agentsCommands(Workspace workspace) {
        if (!Files.isRegularFile(workspace.root().resolve("AGENTS.md"))) {
            return List.of();
        }
        String text;
        try {
            text = workspace.readText(workspace.resolve("AGENTS.md")).text();
        } catch (ToolException unreadable) {
            // binary, or a link out of the workspace: not a source of commands
            return List.of();
        }
        Set<String> commands = new LinkedHashSet<>();
        boolean fenced = false;
        for (String line : text.split("\\R")) {
            if (FENCE.matcher(line).find()) {
                fenced = !fenced;
                continue;
            }
            Matcher dollar = DOLLAR.matcher(line);
            if (dollar.matches()) {
                // a "$ command" line may itself be written in backticks: `$ npm test`
                String command = dollar.group(1).replaceAll("^`|`$", "").strip();
                if (looksLikeCheck(command)) {
                    commands.add(command);
                }
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher span = BACKTICKS.matcher(line);
            while (span.find()) {
                String command = span.group(1).strip();
                if (command.startsWith("$ ")) {
                    command = command.substring(2).strip();
                }
                if (looksLikeCheck(command)) {
                    commands.add(command);
                }
            }
        }
        return List.copyOf(commands);
    }

    /**
     * Whether a command is a check: it starts (after {@code VAR=value} assignments) with a known
     * build, test or lint tool or a path such as {@code ./gradlew} or {@code scripts/test.sh}; some
     * word names checking ({@code test}, {@code lint}, {@code verify}, {@code build}, {@code --check},
     * {@code test:unit}, ...); and no word makes it something else ({@code install}, {@code deploy},
     * {@code publish}, {@code dev}, {@code start}, {@code watch}, ...).
     */
    static boolean looksLikeCheck(String command) {
        String[] words = command.strip().split("\\s+");
        int first = 0;
        while (first < words.length && ASSIGNMENT.matcher(words[first]).matches()) {
            first++;
        }
        if (first >= words.length) {
            return false;
        }
        String program = words[first];
        boolean path = program.startsWith("./") || program.matches("(bin|scripts?|tools|ci|dev)/\\S+");
        String base = program.substring(program.lastIndexOf('/') + 1);
        if (!path && !RUNNERS.contains(base)) {
            return false;
        }
        boolean check = false;
        for (int i = first; i < words.length; i++) {
            String word = words[i].toLowerCase(Locale.ROOT);
            if (word.equals("--check")) {
                check = true;
                continue;
            }
            if (i == first + 1 && word.equals("ci") && Set.of("npm", "pnpm", "yarn").contains(base)) {
                return false; // npm ci installs
            }
            for (String part : word.replaceAll("^-+", "").split("[:/_.\\-]")) {
                if (SIDE_EFFECTS.contains(part) && !part.isEmpty() && i > first) {
                    return false;
                }
                if (CHECK_WORDS.contains(part)) {
                    check = true;
                }
            }
        }
        return check;
    }

    /**
     * Names for AGENTS.md commands: the last word that is not an option or a path ({@code verify},
     * {@code lint:css}), or a lone script's file name; the whole command where two would share a name.
     */
    private static List<Check> named(List<String> commands) {
        Map<String, Integer> uses = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        for (String command : commands) {
            String name = shortName(command);
            names.add(name);
            uses.merge(name, 1, Integer::sum);
        }
        List<Check> checks = new ArrayList<>();
        for (int i = 0; i < commands.size(); i++) {
            String name = uses.get(names.get(i)) > 1 ? commands.get(i) : names.get(i);
            checks.add(new Check(name, commands.get(i), true));
        }
        return checks;
    }

    private static String shortName(String command) {
        String[] words = command.strip().split("\\s+");
        for (int i = words.length - 1; i >= 0; i--) {
            if (SHORT_NAME.matcher(words[i]).matches()) {
                return words[i];
            }
        }
        // a lone script: its file name (scripts/test.sh is test.sh)
        for (String word : words) {
            if (!ASSIGNMENT.matcher(word).matches()) {
                String base = word.substring(word.lastIndexOf('/') + 1);
                return SHORT_NAME.matcher(base).matches() ? base : command;
            }
        }
        return command;
    }

    /** The scripts of package.json in the root, checks first; empty when there is none. */
    static List<Check> packageScripts(Workspace workspace, Path root) throws ToolException {
        Path file = root.resolve("package.json");
        if (!Files.isRegularFile(file)) {
            return List.of();
        }
        String text = workspace.readText(workspace.resolve("package.json")).text();
        List<String> names;
        try {
            names = scriptNames(text);
        } catch (IOException e) {
            throw new ToolException("package.json is not valid JSON (" + e.getMessage().lines().findFirst().orElse("")
                    + "), so its scripts cannot be read. Fix it or run the checks with bash.");
        }
        String runner = Files.exists(root.resolve("bun.lock")) || Files.exists(root.resolve("bun.lockb"))
                ? "bun run " : "npm run ";
        List<String> ordered = new ArrayList<>();
        for (String first : FIRST_SCRIPTS) {
            if (names.contains(first)) {
                ordered.add(first);
            }
        }
        for (String name : names) {
            // pre- and post- scripts run by themselves around the script they belong to
            boolean hook = (name.startsWith("pre") && names.contains(name.substring(3)))
                    || (name.startsWith("post") && names.contains(name.substring(4)));
            if (!ordered.contains(name) && !hook) {
                ordered.add(name);
            }
        }
        List<Check> checks = new ArrayList<>();
        for (String name : ordered) {
            String quoted = PLAIN_NAME.matcher(name).matches() ? name : "'" + name.replace("'", "'\\''") + "'";
            boolean inAll = FIRST_SCRIPTS.contains(name) || looksLikeCheck("npm " + name.replace(':', ' '));
            checks.add(new Check(name, runner + quoted, inAll));
        }
        return checks;
    }

    private static List<String> scriptNames(String json) throws IOException {
        List<String> names = new ArrayList<>();
        try (JsonParser parser = new JsonFactory().createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the top level is not an object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("scripts") && value == JsonToken.START_OBJECT) {
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        String name = parser.currentName();
                        if (parser.nextToken() == JsonToken.VALUE_STRING && !names.contains(name)) {
                            names.add(name);
                        } else {
                            parser.skipChildren();
                        }
                    }
                } else {
                    parser.skipChildren();
                }
            }
        }
        return names;
    }

    /** The default check of each toolchain whose project file is in the root. */
    static List<Check> toolchains(Path root) {
        List<Check> checks = new ArrayList<>();
        if (Files.isRegularFile(root.resolve("pom.xml"))) {
            checks.add(new Check("maven", (Files.isRegularFile(root.resolve("mvnw")) ? "./mvnw" : "mvn") + " -q verify",
                    true));
        }
        if (List.of("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts").stream()
                .anyMatch(name -> Files.isRegularFile(root.resolve(name)))) {
            checks.add(new Check("gradle", Files.isRegularFile(root.resolve("gradlew")) ? "./gradlew check" : "gradle check",
                    true));
        }
        if (Files.isRegularFile(root.resolve("Cargo.toml"))) {
            checks.add(new Check("cargo", "cargo test", true));
        }
        if (Files.isRegularFile(root.resolve("go.mod"))) {
            checks.add(new Check("go", "go test ./...", true));
        }
        if (List.of("pytest.ini", "pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "conftest.py").stream()
                .anyMatch(name -> Files.isRegularFile(root.resolve(name)))) {
            checks.add(new Check("pytest", "pytest", true));
        }
        return checks;
    }
}
