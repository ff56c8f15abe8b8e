package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.TurnListener;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import javax.inject.Inject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * A catalogue fetched over HTTP from a loopback server (the JDK's HttpServer; plain http is accepted
 * only for this machine, the same code path as https): the signed index, its signature and the jar
 * come from URLs, the jar is checked against the index before it is installed, a wrong hash installs
 * nothing, and an unreachable catalogue is a clear error.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class RemoteCatalogIT {

    private static final TurnListener QUIET = new TurnListener() { };

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    @Inject
    Platform platform;

    private Path workspace;
    private TestCatalog catalog;
    private HttpServer server;
    private final Queue<String> requests = new ConcurrentLinkedQueue<>();

    @Configuration
    public Option[] configuration() {
        return HostOptions.platform();
    }

    @Before
    public void serve() throws Exception {
        Path temp = Files.createTempDirectory("quiver-remote-catalog-it");
        workspace = Files.createDirectories(temp.resolve("ws"));
        catalog = new TestCatalog(temp.resolve("catalog"));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String name = exchange.getRequestURI().getPath().substring(1);
            requests.add(name);
            Path file = catalog.folder.resolve(name).normalize();
            try (exchange) {
                if (!file.startsWith(catalog.folder) || !Files.isRegularFile(file)) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                byte[] body = Files.readAllBytes(file);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
    }

    @After
    public void stop() {
        server.stop(0);
    }

    private String url(String file) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + file;
    }

    private void useCatalog(String indexUrl, boolean signed) throws Exception {
        TestCatalog.config(workspace, "{\"catalogs\": [{\"url\": \"" + indexUrl + "\""
                + (signed ? ", \"publicKey\": \"" + catalog.publicKey + "\"" : "") + "}]}");
    }

    private Session session() {
        return kernel.open(TestCatalog.trusted(workspace));
    }

    private Path echoTool() throws Exception {
        return Bundles.tool(catalog.folder, "com.example.echo", "1.0.0", "echo_tool", "read", "echo", "remote", false);
    }

    @Test
    public void aSignedCatalogueServedOverHttpInstallsAfterTheHashCheck() throws Exception {
        Path jar = echoTool();
        catalog.writeJars(jar).sign();
        useCatalog(url("index.xml"), true);
        try (Session session = session()) {
            Platform.BundleInfo installed = platform.install("echo");
            assertEquals("com.example.echo", installed.name());
            assertEquals("active", installed.state());
            assertEquals(Platform.ORIGIN_CATALOG, installed.origin());
            assertTrue("index, signature and jar came from the server: " + requests,
                    requests.containsAll(List.of("index.xml", "index.xml.sig", jar.getFileName().toString())));

            CallOutcome call = session.call("echo_tool", "{}", QUIET);
            assertEquals(call.output(), CallOutcome.Status.OK, call.status());
            assertEquals("echo_tool remote", call.output());
            Path kept = plugins().resolve("com.example.echo-1.0.0.jar");
            assertEquals("the kept jar is the one served", TestCatalog.sha256(jar), TestCatalog.sha256(kept));
        }
    }

    @Test
    public void aWrongHashServedIsRefusedAndNothingIsInstalled() throws Exception {
        Path jar = echoTool();
        catalog.write(List.of(new TestCatalog.Entry(jar, "ab".repeat(32)))).sign();
        useCatalog(url("index.xml"), true);
        try (Session session = session()) {
            HostException refused = PlatformIT.expect(() -> platform.install("com.example.echo"));
            assertTrue(refused.getMessage(), refused.getMessage().contains("does not match catalogue test")
                    && refused.getMessage().contains(TestCatalog.sha256(jar))
                    && refused.getMessage().contains("Nothing was installed"));
            assertTrue("the jar was fetched and checked: " + requests, requests.contains(jar.getFileName().toString()));
            assertTrue("com.example.echo must not be installed", find("com.example.echo") == null);
            assertTrue(session.tools().stream().noneMatch(t -> t.name().equals("echo_tool")));
            try (Stream<Path> kept = Files.list(plugins())) {
                assertEquals(0, kept.count());
            }
        }
    }

    @Test
    public void anUnreachableCatalogueIsAClearError() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        String unreachable = "http://127.0.0.1:" + closed + "/index.xml";
        useCatalog(unreachable, false);
        try (Session session = session()) {
            HostException refused = PlatformIT.expect(() -> platform.install("com.example.echo"));
            String message = refused.getMessage();
            assertTrue(message, message.contains("No catalogue offers 'com.example.echo'")
                    && message.contains("cannot read the index") && message.contains(unreachable)
                    && !message.contains("null"));
            assertTrue("com.example.echo must not be installed", find("com.example.echo") == null);
        }
    }

    private Path plugins() {
        return Path.of(context.getProperty("quiver.plugins.dir"));
    }

    private Bundle find(String name) {
        for (Bundle bundle : context.getBundles()) {
            if (name.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        return null;
    }
}
