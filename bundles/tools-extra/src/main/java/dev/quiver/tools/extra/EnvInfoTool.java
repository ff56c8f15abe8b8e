package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.osgi.service.component.annotations.Component;

/**
 * {@code env_info}: the operating system, the shell, and which runtimes and package managers are on the
 * PATH with their versions, found without running any program: a version is read from a file the
 * program's installation keeps (a JDK's {@code release}, Go's {@code VERSION}, Node's
 * {@code node_version.h}, a JavaScript tool's {@code package.json}, Maven's core jar name), else from
 * Debian's package list when the program came from a package, else from a version in its real path;
 * when none tells, it is "version unknown". The answer is kept per session (per workspace opened).
 */
@Component(property = {Tool.NAME + "=env_info", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class EnvInfoTool implements Tool {

    /** Programs looked for, by the first name found on the PATH, with the Debian package that ships each. */
    private record Program(String label, List<String> names, String debianPackage) {
    }

    private static final List<Program> RUNTIMES = List.of(
            new Program("java", List.of("java"), null),
            new Program("node", List.of("node", "nodejs"), "nodejs"),
            new Program("python", List.of("python3", "python"), "python3"),
            new Program("go", List.of("go"), "golang-go"),
            new Program("rust", List.of("rustc"), "rustc"),
            new Program("ruby", List.of("ruby"), "ruby"),
            new Program("perl", List.of("perl"), "perl"),
            new Program("php", List.of("php"), "php"),
            new Program("dotnet", List.of("dotnet"), null),
            new Program("deno", List.of("deno"), null),
            new Program("bun", List.of("bun"), null),
            new Program("gcc", List.of("gcc"), "gcc"),
            new Program("clang", List.of("clang"), "clang"));

    private static final List<Program> TOOLS = List.of(
            new Program("mvn", List.of("mvn"), "maven"),
            new Program("gradle", List.of("gradle"), "gradle"),
            new Program("npm", List.of("npm"), "npm"),
            new Program("pnpm", List.of("pnpm"), null),
            new Program("yarn", List.of("yarn"), "yarnpkg"),
            new Program("pip", List.of("pip3", "pip"), "python3-pip"),
            new Program("uv", List.of("uv"), null),
            new Program("poetry", List.of("poetry"), "python3-poetry"),
            new Program("cargo", List.of("cargo"), "cargo"),
            new Program("gem", List.of("gem"), "ruby"),
            new Program("composer", List.of("composer"), "composer"),
            new Program("make", List.of("make"), "make"),
            new Program("cmake", List.of("cmake"), "cmake"),
            new Program("git", List.of("git"), "git"),
            new Program("docker", List.of("docker"), "docker.io"));

    private static final Pattern PATH_VERSION = Pattern.compile("(\\d+\\.\\d+(?:\\.\\d+)*)");

    private static final ToolSpec SPEC = new ToolSpec("env_info",
            "OS, shell, installed runtimes and package managers with versions (read from files, nothing run). "
                    + "Use before choosing commands.",
            """
            {"type":"object","properties":{\
            "refresh":{"type":"boolean"}}}""");

    private final Map<Workspace, String> cache = new WeakHashMap<>();

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        boolean refresh = arguments.bool("refresh", false);
        synchronized (cache) {
            String known = refresh ? null : cache.get(context.workspace());
            if (known == null) {
                known = describe(context.environment(), Path.of("/"));
                cache.put(context.workspace(), known);
            }
            return ToolResult.of(known);
        }
    }

    /**
     * The description, with system files read under {@code system} ({@code /} but in tests), so that
     * {@code /etc/os-release} and the Debian package list can be laid out in a folder.
     */
    static String describe(Map<String, String> environment, Path system) {
        Map<String, String> debian = debianVersions(system.resolve("var/lib/dpkg/status"));
        StringBuilder out = new StringBuilder();
        out.append("OS: ").append(osRelease(system.resolve("etc/os-release")).map(name -> name + "; ").orElse(""))
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version")).append(' ')
                .append(System.getProperty("os.arch")).append("; ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores\n");
        String shell = environment.getOrDefault("SHELL", "");
        out.append("Shell: ").append(shell.isEmpty() ? "SHELL is not set" : shell + versionOf(Path.of(shell),
                "bash", shell.endsWith("bash") ? "bash" : null, debian)).append("; bash runs the commands\n");
        out.append("Quiver runs on Java ").append(System.getProperty("java.version")).append(" (")
                .append(System.getProperty("java.vendor")).append(")\n");
        List<Path> path = new ArrayList<>();
        for (String entry : environment.getOrDefault("PATH", "").split(":")) {
            if (!entry.isEmpty() && entry.startsWith("/")) {
                path.add(Path.of(entry));
            }
        }
        List<String> missing = new ArrayList<>();
        out.append("Runtimes:\n");
        list(RUNTIMES, path, debian, out, missing);
        out.append("Package managers and build tools:\n");
        list(TOOLS, path, debian, out, missing);
        if (!missing.isEmpty()) {
            out.append("Not on the PATH: ").append(String.join(", ", missing)).append('\n');
        }
        out.append("Nothing was run: versions come from the installations' own files, Debian's package list or the "
                + "install path; \"version unknown\" where none says.");
        return out.toString();
    }

    private static void list(List<Program> programs, List<Path> path, Map<String, String> debian, StringBuilder out,
            List<String> missing) {
        for (Program program : programs) {
            Optional<Path> found = Optional.empty();
            for (String name : program.names()) {
                found = onPath(path, name);
                if (found.isPresent()) {
                    break;
                }
            }
            if (found.isEmpty()) {
                missing.add(program.label());
                continue;
            }
            out.append("  ").append(program.label()).append(": ").append(found.get())
                    .append(versionOf(found.get(), program.label(), program.debianPackage(), debian)).append('\n');
        }
    }

    private static Optional<Path> onPath(List<Path> path, String name) {
        for (Path folder : path) {
            Path candidate = folder.resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** {@code , 17.0.9 (from its release file)}, or {@code , version unknown}. */
    static String versionOf(Path program, String label, String debianPackage, Map<String, String> debian) {
        Path real;
        try {
            real = program.toRealPath();
        } catch (IOException e) {
            return ", version unknown";
        }
        Path home = real.getParent() == null ? null : real.getParent().getParent();
        Optional<String> fromFile = home == null ? Optional.empty()
                // pyenv's shims hand over to the version its root's version file names
                : real.getParent().endsWith("shims") ? firstLine(home.resolve("version")) : switch (label) {
            case "java" -> quoted(home.resolve("release"), "JAVA_VERSION");
            case "go" -> firstLine(home.resolve("VERSION")).map(v -> v.startsWith("go") ? v.substring(2) : v);
            case "node" -> nodeHeader(home.resolve("include/node/node_version.h"));
            case "mvn" -> jarVersion(home.resolve("lib"), "maven-core-");
            case "gradle" -> jarVersion(home.resolve("lib"), "gradle-launcher-");
            case "npm", "pnpm", "yarn" -> packageJson(real, label);
            default -> Optional.empty();
        };
        if (fromFile.isPresent()) {
            return ", " + fromFile.get() + " (from its installation's files)";
        }
        String packaged = debianPackage == null || !real.startsWith("/usr/") || real.startsWith("/usr/local/")
                ? null : debian.get(debianPackage);
        if (packaged != null) {
            return ", " + packaged + " (from the Debian package " + debianPackage + ")";
        }
        Matcher version = PATH_VERSION.matcher(real.toString());
        String last = null;
        while (version.find()) {
            last = version.group(1);
        }
        return last != null ? ", " + last + " (from its path " + real + ")"
                : (real.equals(program) ? "" : " -> " + real) + ", version unknown";
    }

    private static Optional<String> osRelease(Path file) {
        return quoted(file, "PRETTY_NAME");
    }

    /** {@code KEY="value"} or {@code KEY=value} in a shell-style file. */
    private static Optional<String> quoted(Path file, String key) {
        for (String line : lines(file, 64 * 1024)) {
            if (line.startsWith(key + "=")) {
                String value = line.substring(key.length() + 1).strip();
                return Optional.of(value.replaceAll("^[\"']|[\"']$", ""));
            }
        }
        return Optional.empty();
    }

    private static Optional<String> firstLine(Path file) {
        List<String> lines = lines(file, 4096);
        return lines.isEmpty() || lines.get(0).isBlank() ? Optional.empty() : Optional.of(lines.get(0).strip());
    }

    private static Optional<String> nodeHeader(Path header) {
        Map<String, String> parts = new HashMap<>();
        for (String line : lines(header, 64 * 1024)) {
            Matcher define = Pattern.compile("#define NODE_(MAJOR|MINOR|PATCH)_VERSION (\\d+)").matcher(line);
            if (define.find()) {
                parts.put(define.group(1), define.group(2));
            }
        }
        return parts.size() == 3 ? Optional.of(parts.get("MAJOR") + "." + parts.get("MINOR") + "." + parts.get("PATCH"))
                : Optional.empty();
    }

    private static Optional<String> jarVersion(Path lib, String prefix) {
        try (var files = Files.list(lib)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.startsWith(prefix) && name.endsWith(".jar"))
                    .map(name -> name.substring(prefix.length(), name.length() - 4))
                    .filter(version -> version.matches("\\d+(\\.\\d+)+.*")).findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The {@code version} of the package.json a JavaScript tool's script sits under (a few folders up). */
    private static Optional<String> packageJson(Path script, String name) {
        Path folder = script.getParent();
        for (int up = 0; up < 4 && folder != null; up++, folder = folder.getParent()) {
            String text = String.join("\n", lines(folder.resolve("package.json"), 256 * 1024));
            if (text.contains("\"name\": \"" + name + "\"") || text.contains("\"name\":\"" + name + "\"")) {
                Matcher version = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"").matcher(text);
                return version.find() ? Optional.of(version.group(1)) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Installed package versions from Debian's package list, without epoch or Debian revision. */
    static Map<String, String> debianVersions(Path status) {
        Map<String, String> versions = new LinkedHashMap<>();
        String name = null;
        boolean installed = false;
        for (String line : lines(status, 64L * 1024 * 1024)) {
            if (line.startsWith("Package: ")) {
                name = line.substring(9).strip();
                installed = false;
            } else if (line.startsWith("Status: ")) {
                installed = line.endsWith(" installed");
            } else if (line.startsWith("Version: ") && name != null && installed) {
                String version = line.substring(9).strip().replaceFirst("^\\d+:", "").replaceFirst("-[^-]*$", "");
                versions.putIfAbsent(name, version.replaceFirst("\\+dfsg.*$|\\+ds.*$|~.*$", ""));
            }
        }
        return versions;
    }

    /** A small text file's lines; none when it is missing, unreadable or larger than {@code max} bytes. */
    private static List<String> lines(Path file, long max) {
        try {
            if (!Files.isRegularFile(file) || Files.size(file) > max) {
                return List.of();
            }
            try (InputStream in = Files.newInputStream(file)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            }
        } catch (IOException e) {
            return List.of();
        }
    }
}
