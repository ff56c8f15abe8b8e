package dev.quiver.cli.terminal;

import dev.quiver.api.host.Platform;
import java.util.ArrayList;
import java.util.List;

/** What {@code /bundles} prints; a plain function. */
public final class BundlesReport {

    private BundlesReport() {
    }

    /** One line per bundle: id, name and version, state, origin, trust, tools, and any problem. */
    public static List<String> lines(List<Platform.BundleInfo> bundles) {
        List<String> lines = new ArrayList<>();
        int width = 4;
        for (Platform.BundleInfo bundle : bundles) {
            width = Math.max(width, bundle.name().length() + 1 + bundle.version().length());
        }
        for (Platform.BundleInfo bundle : bundles) {
            String label = bundle.name() + " " + bundle.version();
            StringBuilder line = new StringBuilder(String.format("  %3d  %-" + width + "s  %-8s %s", bundle.id(), label,
                    bundle.state(), bundle.origin() + bundle.catalog().map(c -> " (" + c + ")").orElse("")));
            if (bundle.trusted()) {
                line.append("  trusted");
            }
            if (!bundle.tools().isEmpty()) {
                line.append("  tools: ").append(String.join(", ", bundle.tools()));
            }
            bundle.problem().ifPresent(problem -> line.append("  problem: ").append(problem));
            lines.add(line.toString());
        }
        lines.add(bundles.size() + " bundles");
        return lines;
    }
}
