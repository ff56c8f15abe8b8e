package dev.quiver.api.host;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Which bundles the installation trusts, registered as a service by the platform's catalogue
 * bundle. The kernel honours a tool's {@code quiver.tool.autoApprove=true} only when its bundle is
 * trusted; without this service, no bundle is. Guards and deny rules apply to auto-approved tools
 * like any other.
 */
@ConsumerType
public interface TrustPolicy {

    /**
     * Whether a bundle is trusted.
     *
     * @param symbolicName the bundle's symbolic name
     * @param version the bundle's version
     */
    boolean trusted(String symbolicName, String version);
}
