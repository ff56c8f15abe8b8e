package dev.quiver.catalog;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.osgi.framework.BundleContext;

/**
 * What the installation says, read once from framework (or system) properties the launcher sets from
 * {@code conf/config.properties}.
 *
 * @param home the distribution folder ({@code quiver.home}); empty outside the distribution
 * @param installationCatalogs the installation's catalogue list ({@code quiver.catalogs}, a JSON file)
 * @param enforce whether the installation enforces its catalogues from the first instant
 *     ({@code quiver.catalog.enforce})
 * @param plugins where bundles installed from catalogues are kept for later processes
 *     ({@code quiver.plugins.dir}); empty to keep them for this process only
 * @param deploy the folder FileInstall watches ({@code felix.fileinstall.dir})
 * @param exempt folders whose bundles are the installation itself and are never refused
 *     ({@code quiver.catalog.exempt}, by default the distribution's {@code bundle/} and {@code shell/})
 */
record Settings(Optional<Path> home, Optional<Path> installationCatalogs, boolean enforce, Optional<Path> plugins,
        Optional<Path> deploy, List<Path> exempt) {

    static final String HOME = "quiver.home";
    static final String CATALOGS = "quiver.catalogs";
    static final String ENFORCE = "quiver.catalog.enforce";
    static final String PLUGINS = "quiver.plugins.dir";
    static final String EXEMPT = "quiver.catalog.exempt";
    static final String DEPLOY = "felix.fileinstall.dir";

    Settings {
        exempt = List.copyOf(exempt);
    }

    static Settings from(BundleContext context) {
        Optional<Path> home = path(context.getProperty(HOME));
        List<Path> exempt = new ArrayList<>();
        String exemptText = context.getProperty(EXEMPT);
        if (exemptText != null) {
            for (String part : exemptText.split(",")) {
                path(part).ifPresent(exempt::add);
            }
        } else {
            home.ifPresent(h -> {
                exempt.add(h.resolve("bundle"));
                exempt.add(h.resolve("shell"));
            });
        }
        return new Settings(home, path(context.getProperty(CATALOGS)),
                Boolean.parseBoolean(String.valueOf(context.getProperty(ENFORCE)).strip()),
                path(context.getProperty(PLUGINS)), path(context.getProperty(DEPLOY)), exempt);
    }

    private static Optional<Path> path(String value) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Path.of(value.strip()).toAbsolutePath().normalize());
        } catch (java.nio.file.InvalidPathException e) {
            return Optional.empty();
        }
    }

    static boolean under(Path file, Optional<Path> folder) {
        return folder.isPresent() && file.startsWith(folder.get());
    }
}
