package dev.quiver.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.Access;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolSpec;
import java.util.Optional;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

/**
 * One tool service as the registry holds it: what its service properties say, and the service
 * object and spec, fetched once on first use and released when the service goes away.
 */
final class RegisteredTool {

    private final ServiceReference<Tool> reference;
    private final String name;
    private final Optional<String> set;
    private final Access access;
    private final boolean autoApproveRequested;
    private final boolean previewable;
    private final String bundle;
    private final ServiceSource source;
    private volatile Tool service;
    private volatile ToolSpec spec;
    private volatile String compactParameters;
    private volatile JsonNode schema;

    /** Gets and releases service objects; the registry's bundle context in production. */
    interface ServiceSource {
        Tool get(ServiceReference<Tool> reference);
    }

    RegisteredTool(ServiceReference<Tool> reference, String name, Optional<String> set, Access access,
            boolean autoApproveRequested, String bundle, ServiceSource source) {
        this.reference = reference;
        this.previewable = reference != null
                && Boolean.parseBoolean(String.valueOf(reference.getProperty(dev.quiver.api.Tool.PREVIEW)));
        this.name = name;
        this.set = set;
        this.access = access;
        this.autoApproveRequested = autoApproveRequested;
        this.bundle = bundle;
        this.source = source;
    }

    String name() {
        return name;
    }

    Optional<String> set() {
        return set;
    }

    Access access() {
        return access;
    }

    boolean autoApproveRequested() {
        return autoApproveRequested;
    }

    /** Whether the tool declares that a dry run against a recording workspace shows all it will do. */
    boolean previewable() {
        return previewable;
    }

    String bundle() {
        return bundle;
    }

    /** The version of the registering bundle, empty when it is gone. */
    String bundleVersion() {
        Bundle owner = reference.getBundle();
        return owner == null ? "" : owner.getVersion().toString();
    }

    ServiceReference<Tool> reference() {
        return reference;
    }

    /** Whether the service is still registered; false once its bundle stopped or went away. */
    boolean isRegistered() {
        Bundle owner = reference.getBundle();
        return owner != null;
    }

    /** The service object, or empty when the tool is gone. */
    Optional<Tool> service() {
        Tool current = service;
        if (current == null) {
            synchronized (this) {
                current = service;
                if (current == null && isRegistered()) {
                    current = source.get(reference);
                    service = current;
                }
            }
        }
        return Optional.ofNullable(current);
    }

    /** The spec, or empty when the tool is gone or its spec() failed. */
    Optional<ToolSpec> spec() {
        ToolSpec current = spec;
        if (current == null) {
            Optional<Tool> tool = service();
            if (tool.isEmpty()) {
                return Optional.empty();
            }
            try {
                current = tool.get().spec();
            } catch (RuntimeException | LinkageError e) {
                return Optional.empty();
            }
            if (current == null || !current.name().equals(name)) {
                return Optional.empty();
            }
            compactParameters = Json.compact(current.parameters()).orElse(null);
            if (compactParameters == null) {
                return Optional.empty();
            }
            schema = Json.tree(compactParameters);
            spec = current;
        }
        return Optional.of(current);
    }

    /** The argument schema as compact JSON; only valid after {@link #spec()} returned a spec. */
    String compactParameters() {
        return compactParameters;
    }

    /** The parsed argument schema; only valid after {@link #spec()} returned a spec. */
    JsonNode schema() {
        return schema;
    }

    /** Bytes of name, description and parameters as sent to the model. */
    int schemaBytes() {
        return spec().map(s -> Json.utf8Length(s.name()) + Json.utf8Length(s.description())
                + Json.utf8Length(compactParameters)).orElse(0);
    }

    /** Forgets the service object after the service was unregistered. */
    void release() {
        service = null;
    }
}
