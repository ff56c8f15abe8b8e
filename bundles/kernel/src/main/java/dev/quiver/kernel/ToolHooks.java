package dev.quiver.kernel;

import dev.quiver.api.Tool;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.hooks.service.EventListenerHook;
import org.osgi.framework.hooks.service.FindHook;
import org.osgi.framework.hooks.service.ListenerHook.ListenerInfo;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * Hides {@link Tool} services from every bundle but the kernel and the bundle that registered
 * them. Only the kernel can call a tool, so a call the kernel refused cannot run by another route.
 */
@Component(service = {FindHook.class, EventListenerHook.class}, immediate = true)
public class ToolHooks implements FindHook, EventListenerHook {

    private static final String TOOL = Tool.class.getName();

    private final long kernelBundleId;

    @Activate
    public ToolHooks(BundleContext context) {
        this.kernelBundleId = context.getBundle().getBundleId();
    }

    @Override
    public void find(BundleContext context, String name, String filter, boolean allServices,
            Collection<ServiceReference<?>> references) {
        Bundle finder = context.getBundle();
        if (finder == null) {
            return;
        }
        for (Iterator<ServiceReference<?>> it = references.iterator(); it.hasNext();) {
            if (!visible(finder, it.next())) {
                it.remove();
            }
        }
    }

    @Override
    public void event(ServiceEvent event, Map<BundleContext, Collection<ListenerInfo>> listeners) {
        ServiceReference<?> reference = event.getServiceReference();
        if (!isTool(reference)) {
            return;
        }
        listeners.keySet().removeIf(context -> {
            Bundle listener = context.getBundle();
            return listener != null && !visible(listener, reference);
        });
    }

    private boolean visible(Bundle bundle, ServiceReference<?> reference) {
        if (!isTool(reference)) {
            return true;
        }
        Bundle owner = reference.getBundle();
        return bundle.getBundleId() == kernelBundleId || (owner != null && owner.getBundleId() == bundle.getBundleId());
    }

    private static boolean isTool(ServiceReference<?> reference) {
        Object classes = reference.getProperty(Constants.OBJECTCLASS);
        if (classes instanceof String[] names) {
            for (String name : names) {
                if (TOOL.equals(name)) {
                    return true;
                }
            }
        }
        return false;
    }
}
