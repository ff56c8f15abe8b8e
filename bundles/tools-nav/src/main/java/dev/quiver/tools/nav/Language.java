package dev.quiver.tools.nav;

import java.util.Locale;
import java.util.Optional;
import org.treesitter.TSLanguage;
import org.treesitter.TreeSitterGo;
import org.treesitter.TreeSitterJava;
import org.treesitter.TreeSitterJavascript;
import org.treesitter.TreeSitterPython;
import org.treesitter.TreeSitterRust;
import org.treesitter.TreeSitterTsx;
import org.treesitter.TreeSitterTypescript;

/** The languages whose declarations are read, each by its file extensions and its tree-sitter grammar. */
enum Language {
    JAVA("Java", "java"),
    JAVASCRIPT("JavaScript", "js", "mjs", "cjs", "jsx"),
    TYPESCRIPT("TypeScript", "ts", "mts", "cts"),
    /** TypeScript with JSX, a grammar of its own: in plain TypeScript {@code <T>x} is a type assertion. */
    TSX("TSX", "tsx"),
    PYTHON("Python", "py", "pyi"),
    GO("Go", "go"),
    RUST("Rust", "rs");

    /** For messages: every supported language with its extensions. */
    static final String SUPPORTED = "Java (.java), JavaScript (.js .mjs .cjs .jsx), TypeScript (.ts .mts .cts), TSX (.tsx), "
            + "Python (.py .pyi), Go (.go), Rust (.rs)";

    final String title;
    private final String[] extensions;

    Language(String title, String... extensions) {
        this.title = title;
        this.extensions = extensions;
    }

    /** The language of a file by its extension. */
    static Optional<Language> of(String path) {
        int slash = path.lastIndexOf('/');
        int dot = path.lastIndexOf('.');
        if (dot <= slash + 1) {
            return Optional.empty();
        }
        String extension = path.substring(dot + 1).toLowerCase(Locale.ROOT);
        for (Language language : values()) {
            for (String candidate : language.extensions) {
                if (candidate.equals(extension)) {
                    return Optional.of(language);
                }
            }
        }
        return Optional.empty();
    }

    /** The grammar; the natives must be loaded first ({@link Natives#load}). */
    TSLanguage grammar() {
        return switch (this) {
            case JAVA -> Grammars.JAVA;
            case JAVASCRIPT -> Grammars.JAVASCRIPT;
            case TYPESCRIPT -> Grammars.TYPESCRIPT;
            case TSX -> Grammars.TSX;
            case PYTHON -> Grammars.PYTHON;
            case GO -> Grammars.GO;
            case RUST -> Grammars.RUST;
        };
    }

    /** Made on first use, after {@link Natives#load}. */
    private static final class Grammars {
        static final TSLanguage JAVA = new TreeSitterJava();
        static final TSLanguage JAVASCRIPT = new TreeSitterJavascript();
        static final TSLanguage TYPESCRIPT = new TreeSitterTypescript();
        static final TSLanguage TSX = new TreeSitterTsx();
        static final TSLanguage PYTHON = new TreeSitterPython();
        static final TSLanguage GO = new TreeSitterGo();
        static final TSLanguage RUST = new TreeSitterRust();
    }
}
