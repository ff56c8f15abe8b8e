package dev.quiver.kernel;

import dev.quiver.api.Tool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import org.apache.felix.framework.Felix;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/** A real, empty Felix framework for tests that need real service references. */
final class Framework implements AutoCloseable {

    private final Felix felix;
    final BundleContext context;
    final ToolRegistry registry;

    Framework() throws Exception {
        Path storage = Files.createTempDirectory("quiver-kernel-test");
        felix = new Felix(Map.of(Constants.FRAMEWORK_STORAGE, storage.toString(),
                Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT));
        felix.start();
        context = felix.getBundleContext();
        registry = new ToolRegistry(context);
    }

    /** Registers a tool service and adds it to the registry, as SCR would. */
    ServiceRegistration<Tool> register(Tool tool, String name, String access, Object... more) {
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put(Tool.NAME, name);
        if (access != null) {
            properties.put(Tool.ACCESS, access);
        }
        for (int i = 0; i + 1 < more.length; i += 2) {
            properties.put((String) more[i], more[i + 1]);
        }
        ServiceRegistration<Tool> registration = context.registerService(Tool.class, tool, properties);
        registry.addTool(registration.getReference());
        return registration;
    }

    /** Unregisters a tool service and removes it from the registry. */
    void unregister(ServiceRegistration<Tool> registration) {
        ServiceReference<Tool> reference = registration.getReference();
        registration.unregister();
        registry.removeTool(reference);
    }

    @Override
    public void close() throws BundleException, InterruptedException {
        felix.stop();
        felix.waitForStop(5000);
    }
}
