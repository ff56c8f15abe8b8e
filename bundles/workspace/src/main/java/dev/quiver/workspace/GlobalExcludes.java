package dev.quiver.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.lib.ConfigConstants;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;

/**
 * Where git finds the user's global excludes file: {@code core.excludesFile} from the repository's
 * config, else the user's ({@code ~/.gitconfig}, {@code $XDG_CONFIG_HOME/git/config}), else
 * {@code $XDG_CONFIG_HOME/git/ignore} ({@code ~/.config/git/ignore}). Config files are read with
 * JGit's parser.
 */
record GlobalExcludes(Path home, Optional<Path> xdgConfigHome) {

    static GlobalExcludes fromEnvironment() {
        return of(Path.of(System.getProperty("user.home")), System.getenv());
    }

    static GlobalExcludes of(Path home, Map<String, String> environment) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        return new GlobalExcludes(home, xdg == null || xdg.isBlank() ? Optional.empty() : Optional.of(Path.of(xdg)));
    }

    /** The global excludes file for a repository (its git folder; null when unknown), if it exists. */
    Optional<Path> file(Path gitDir) {
        Path config = xdgConfigHome.orElse(home.resolve(".config")).resolve("git");
        String configured = null;
        // later files win, as git reads them: the XDG config, ~/.gitconfig, then the repository's
        for (Path file : new Path[] {config.resolve("config"), home.resolve(".gitconfig"),
                gitDir == null ? null : gitDir.resolve("config")}) {
            String value = file == null ? null : read(file).getString(ConfigConstants.CONFIG_CORE_SECTION, null,
                    ConfigConstants.CONFIG_KEY_EXCLUDESFILE);
            if (value != null && !value.isBlank()) {
                configured = value.strip();
            }
        }
        Path excludes = configured == null ? config.resolve("ignore")
                : configured.startsWith("~/") ? home.resolve(configured.substring(2)) : Path.of(configured);
        return Files.isRegularFile(excludes) ? Optional.of(excludes) : Optional.empty();
    }

    private static Config read(Path file) {
        FileBasedConfig config = new FileBasedConfig(file.toFile(), FS.DETECTED);
        try {
            if (Files.isRegularFile(file)) {
                config.load();
            }
        } catch (IOException | ConfigInvalidException e) {
            // a broken config file contributes nothing, as an unreadable ignore file does
        }
        return config;
    }
}
