package dev.quiver.catalog;

import dev.quiver.api.host.Platform.BundleInfo;
import dev.quiver.api.host.Platform.CatalogInfo;
import dev.quiver.api.host.Platform.EntryInfo;
import dev.quiver.api.host.Platform.Finding;
import java.util.List;

/** Plain-text tables of the platform for the shell. */
final class Listing {

    private Listing() {
    }

    static String catalogs(List<CatalogInfo> catalogs, List<EntryInfo> entries, boolean enforcing) {
        StringBuilder out = new StringBuilder();
        if (catalogs.isEmpty()) {
            out.append("No catalogue is configured.\n");
        }
        for (CatalogInfo catalog : catalogs) {
            out.append("catalogue ").append(catalog.name()).append(": ").append(catalog.location());
            out.append(catalog.problem().map(p -> " — NOT USABLE: " + p).orElse(" — " + catalog.entries() + " bundles"
                    + (catalog.signed() ? ", signature verified" : ", unsigned")
                    + (catalog.trusted().isEmpty() ? "" : ", trusts " + String.join(" ", catalog.trusted()))));
            out.append('\n');
        }
        out.append("enforcement: ").append(enforcing ? "on (nothing outside the catalogues may run)" : "off").append('\n');
        if (!entries.isEmpty()) {
            out.append(String.format("%-12s %-36s %-16s %-5s %s%n", "CATALOGUE", "NAME", "VERSION", "TOOLS", "INSTALLED"));
            for (EntryInfo entry : entries) {
                out.append(String.format("%-12s %-36s %-16s %-5s %s%n", entry.catalog(), entry.name(), entry.version(),
                        entry.providesTools() ? "yes" : "-", entry.installed().orElse("-")));
            }
        }
        return out.toString().stripTrailing();
    }

    static String bundles(List<BundleInfo> bundles) {
        StringBuilder out = new StringBuilder(String.format("%-4s %-36s %-16s %-9s %-12s %-8s %s%n", "ID", "NAME",
                "VERSION", "STATE", "ORIGIN", "TRUSTED", "TOOLS"));
        for (BundleInfo bundle : bundles) {
            out.append(String.format("%-4d %-36s %-16s %-9s %-12s %-8s %s%n", bundle.id(), bundle.name(), bundle.version(),
                    bundle.state(), bundle.origin(), bundle.trusted() ? "yes" : "-",
                    bundle.tools().isEmpty() ? "-" : String.join(",", bundle.tools())));
            bundle.problem().ifPresent(p -> out.append("     ! ").append(p).append('\n'));
        }
        return out.toString().stripTrailing();
    }

    static String bundle(BundleInfo bundle) {
        return bundle.name() + " " + bundle.version() + " (" + bundle.state()
                + (bundle.tools().isEmpty() ? "" : ", tools: " + String.join(", ", bundle.tools()))
                + (bundle.trusted() ? ", trusted" : "") + ")" + bundle.problem().map(p -> " — " + p).orElse("");
    }

    static String findings(List<Finding> findings) {
        StringBuilder out = new StringBuilder();
        long problems = findings.stream().filter(f -> !f.ok()).count();
        for (Finding finding : findings) {
            out.append(finding.ok() ? "ok    " : "FAIL  ").append(finding.subject()).append(": ").append(finding.message())
                    .append('\n');
        }
        out.append(problems == 0 ? "verified: no problems" : problems + (problems == 1 ? " problem" : " problems"));
        return out.toString();
    }
}
