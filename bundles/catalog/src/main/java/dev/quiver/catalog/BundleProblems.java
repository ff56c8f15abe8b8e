package dev.quiver.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.namespace.PackageNamespace;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRequirement;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.resource.Namespace;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/** Why an installed bundle does not run, or runs without some of its components, in one line. */
final class BundleProblems {

    private BundleProblems() {
    }

    /** The packages a bundle that is not resolved imports and nothing resolved exports. */
    static List<String> missingPackages(BundleContext context, Bundle bundle) {
        BundleRevision revision = bundle.adapt(BundleRevision.class);
        if (revision == null) {
            return List.of();
        }
        List<BundleCapability> exported = new ArrayList<>();
        for (Bundle other : context.getBundles()) {
            BundleWiring wiring = other.adapt(BundleWiring.class);
            if (wiring != null && wiring.isInUse()) {
                exported.addAll(wiring.getCapabilities(PackageNamespace.PACKAGE_NAMESPACE));
            }
        }
        List<String> missing = new ArrayList<>();
        for (BundleRequirement requirement : revision.getDeclaredRequirements(PackageNamespace.PACKAGE_NAMESPACE)) {
            Map<String, String> directives = requirement.getDirectives();
            if (Namespace.RESOLUTION_OPTIONAL.equals(directives.get(Namespace.REQUIREMENT_RESOLUTION_DIRECTIVE))) {
                continue;
            }
            String filterText = directives.get(Namespace.REQUIREMENT_FILTER_DIRECTIVE);
            if (filterText == null) {
                continue;
            }
            try {
                Filter filter = FrameworkUtil.createFilter(filterText);
                boolean found = exported.stream().anyMatch(capability -> filter.matches(capability.getAttributes()));
                if (!found) {
                    missing.add(packageOf(filterText));
                }
            } catch (InvalidSyntaxException e) {
                missing.add(filterText);
            }
        }
        return missing;
    }

    private static String packageOf(String filter) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("osgi\\.wiring\\.package=([^)]+)").matcher(filter);
        return m.find() ? m.group(1) : filter;
    }

    /** Components of a bundle that failed to activate, with their failure's first line. */
    static List<String> failedComponents(Optional<ServiceComponentRuntime> runtime, Bundle bundle) {
        if (runtime.isEmpty() || bundle.getState() != Bundle.ACTIVE) {
            return List.of();
        }
        List<String> failed = new ArrayList<>();
        try {
            for (ComponentDescriptionDTO description : runtime.get().getComponentDescriptionDTOs(bundle)) {
                for (ComponentConfigurationDTO configuration : runtime.get().getComponentConfigurationDTOs(description)) {
                    if (configuration.state == ComponentConfigurationDTO.FAILED_ACTIVATION) {
                        String failure = configuration.failure == null ? "" : configuration.failure.strip();
                        int end = failure.indexOf('\n');
                        failed.add("component " + description.name + " failed to activate"
                                + (failure.isEmpty() ? "" : ": " + (end < 0 ? failure : failure.substring(0, end)).strip()));
                    }
                }
            }
        } catch (RuntimeException e) {
            // the runtime went away while asking: nothing to report
        }
        return failed;
    }
}
