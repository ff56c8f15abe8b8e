package dev.quiver.tools.net;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** web_fetch against a real loopback server; the context's config allows private hosts to reach it. */
class WebFetchToolTest {

    private static HttpServer server;
    private static String base;

    private final WebFetchTool tool = new WebFetchTool();
    private ToolTestContext context;

    @TempDir
    Path root;

    static final String PAGE = """
            <!doctype html><html><head><title>The Title</title>
            <style>body { color: red }</style><script>var secret = "SCRIPT";</script></head>
            <body><nav><a href="/home">Home nav</a></nav>
            <h1>Heading One</h1>
            <p>A   paragraph with <a href="/other">a link</a> and <code>inline()</code>.</p>
            <ul><li>first</li><li>second<ul><li>nested</li></ul></li></ul>
            <ol><li>one</li><li>two</li></ol>
            <pre><code class="language-java">int x = 1;
            int y = 2;</code></pre>
            <table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
            <div hidden>HIDDEN</div><noscript>NOSCRIPT</noscript>
            <script>document.write("LATE")</script>
            </body></html>""";

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-http");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/page", ex -> send(ex, 200, "text/html; charset=utf-8", PAGE));
        server.createContext("/plain", ex -> send(ex, 200, "text/plain", "  line one\n<b>not html</b>\n"));
        server.createContext("/json", ex -> send(ex, 200, "application/json", "{\"a\": [1, 2], \"b\": \"<x>\"}"));
        server.createContext("/image", ex -> send(ex, 200, "image/png", "\u0089PNG\0\0\0"));
        server.createContext("/missing", ex -> send(ex, 404, "text/html", "<html><body><h1>No such page</h1></body></html>"));
        server.createContext("/redirect/", ex -> {
            // /redirect/N redirects to /redirect/N-1, /redirect/0 to /page
            int n = Integer.parseInt(ex.getRequestURI().getPath().substring("/redirect/".length()));
            redirect(ex, n == 0 ? "/page" : "/redirect/" + (n - 1));
        });
        server.createContext("/to-ftp", ex -> redirect(ex, "ftp://example.com/file"));
        server.createContext("/to-file", ex -> redirect(ex, "file:///etc/passwd"));
        server.createContext("/to-other-host", ex -> redirect(ex, "http://localhost:" + server.getAddress().getPort() + "/page"));
        server.createContext("/slow", ex -> {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            send(ex, 200, "text/plain", "late");
        });
        server.createContext("/trickle", ex -> {
            ex.getResponseHeaders().set("Content-Type", "text/plain");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                for (int i = 0; i < 30; i++) {
                    out.write("tick\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    Thread.sleep(100);
                }
            } catch (InterruptedException | IOException e) {
                // client went away
            }
        });
        server.createContext("/huge", ex -> {
            ex.getResponseHeaders().set("Content-Type", "text/plain");
            ex.sendResponseHeaders(200, 0);
            byte[] chunk = "0123456789abcdef".repeat(4096).getBytes(StandardCharsets.UTF_8);
            try (OutputStream out = ex.getResponseBody()) {
                for (int i = 0; i < 200; i++) { // 12.5 MB
                    out.write(chunk);
                }
            } catch (IOException e) {
                // the client stops reading at its cap
            }
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(type.startsWith("image/") ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void redirect(HttpExchange ex, String location) throws IOException {
        ex.getResponseHeaders().set("Location", location);
        ex.sendResponseHeaders(302, -1);
        ex.close();
    }

    @BeforeEach
    void context() throws IOException {
        context = new ToolTestContext(root);
        context.config.put("net", Map.of("allowPrivate", true));
    }

    private String fetch(String url, Object... more) throws ToolException {
        java.util.LinkedHashMap<String, Object> args = new java.util.LinkedHashMap<>();
        args.put("url", url);
        for (int i = 0; i < more.length; i += 2) {
            args.put((String) more[i], more[i + 1]);
        }
        return tool.call(Arguments.of(args), context).text();
    }

    private ToolException fails(String url, Object... more) {
        return assertThrows(ToolException.class, () -> fetch(url, more));
    }

    @Test
    void htmlBecomesReadableTextWithoutScriptsOrStyles() throws Exception {
        String text = fetch(base + "/page");
        assertTrue(text.startsWith("[" + base + "/page, HTTP 200, text/html]\nTitle: The Title\n"), text);
        assertTrue(text.contains("# Heading One"), text);
        assertTrue(text.contains("A paragraph with a link (" + base + "/other) and `inline()`."), text);
        assertTrue(text.contains("- first\n- second\n  - nested"), text);
        assertTrue(text.contains("1. one\n2. two"), text);
        assertTrue(text.contains("```java\nint x = 1;\nint y = 2;\n```"), text);
        assertTrue(text.contains("| k | v |\n|---|---|\n| a | 1 |"), text);
        for (String gone : List.of("SCRIPT", "LATE", "color: red", "HIDDEN", "NOSCRIPT", "Home nav")) {
            assertFalse(text.contains(gone), gone + " in " + text);
        }
    }

    @Test
    void theUrlIsTheSubject() throws Exception {
        assertEquals(List.of(Subject.url("https://example.com/a")),
                tool.subjects(Arguments.of(Map.of("url", " https://example.com/a "))));
        assertThrows(ToolException.class, () -> tool.subjects(Arguments.empty()));
    }

    @Test
    void redirectsAreFollowedUpToFive() throws Exception {
        String text = fetch(base + "/redirect/4");
        assertTrue(text.startsWith("[" + base + "/page (from " + base + "/redirect/4), HTTP 200"), text);
        assertTrue(text.contains("# Heading One"), text);
    }

    @Test
    void aSixthRedirectIsRefused() {
        ToolException e = fails(base + "/redirect/5");
        assertTrue(e.getMessage().startsWith("Too many redirects: stopped after 5"), e.getMessage());
    }

    @Test
    void aRedirectToAnotherSchemeIsNotFollowed() {
        assertTrue(fails(base + "/to-ftp").getMessage().contains("redirected to ftp://example.com/file, which is not http or https"));
        assertTrue(fails(base + "/to-file").getMessage().contains("which is not http or https"));
    }

    @Test
    void aRedirectToAnotherHostIsReportedForTheNextCall() throws Exception {
        String text = fetch(base + "/to-other-host");
        assertTrue(text.contains("redirects (HTTP 302) to another host: http://localhost:"), text);
        assertTrue(text.contains("call web_fetch with that URL"), text);
    }

    @Test
    void httpErrorsGiveStatusReasonAndAnExcerpt() {
        String message = fails(base + "/missing").getMessage();
        assertTrue(message.startsWith("HTTP 404 Not Found from " + base + "/missing. Check the URL."), message);
        assertTrue(message.contains("The page says: # No such page"), message);
    }

    @Test
    void aSlowResponseTimesOut() {
        long start = System.nanoTime();
        String message = fails(base + "/slow", "timeout", 500).getMessage();
        assertTrue(message.startsWith("Timed out after 500 ms fetching " + base + "/slow"), message);
        assertTrue(System.nanoTime() - start < 2_500_000_000L, "took too long");
    }

    @Test
    void aTricklingBodyTimesOutToo() {
        long start = System.nanoTime();
        String message = fails(base + "/trickle", "timeout", 700).getMessage();
        assertTrue(message.startsWith("Timed out after 700 ms"), message);
        assertTrue(System.nanoTime() - start < 2_500_000_000L, "took too long");
    }

    @Test
    void theTimeoutArgumentIsCapped() {
        assertTrue(fails(base + "/plain", "timeout", 600_000).getMessage().contains("between 1 and 120000"));
    }

    @Test
    void aHugeBodyIsCutAtTheCapAndSaysSo() throws Exception {
        String text = fetch(base + "/huge", "maxChars", 1000);
        assertTrue(text.startsWith("[" + base + "/huge, HTTP 200, text/plain, body cut at 5 MB, first 1,000 of "
                + String.format(java.util.Locale.ROOT, "%,d", WebFetchTool.MAX_BODY_BYTES) + " chars]"), text.substring(0, 200));
    }

    @Test
    void outputIsCappedAtThirtyThousandByDefault() throws Exception {
        String text = fetch(base + "/huge");
        assertTrue(text.length() < 30_200, "length " + text.length());
        assertTrue(text.contains("first 30,000 of"), text.substring(0, 200));
        assertTrue(fails(base + "/huge", "maxChars", 30_001).getMessage().contains("between 1 and 30000"));
    }

    @Test
    void plainTextAndJsonPassThroughAsIs() throws Exception {
        assertEquals("[" + base + "/plain, HTTP 200, text/plain]\n\n  line one\n<b>not html</b>\n", fetch(base + "/plain"));
        assertEquals("[" + base + "/json, HTTP 200, application/json]\n\n{\"a\": [1, 2], \"b\": \"<x>\"}", fetch(base + "/json"));
    }

    @Test
    void binaryContentIsRefused() {
        String message = fails(base + "/image").getMessage();
        assertEquals(base + "/image is image/png, not text; web_fetch reads text pages only (HTML, plain text, JSON, XML).",
                message);
    }

    @Test
    void onlyHttpAndHttpsAreFetched() {
        assertTrue(fails("file:///etc/passwd").getMessage().startsWith("Only http and https URLs can be fetched, not file:"));
        assertTrue(fails("ftp://example.com/x").getMessage().startsWith("Only http and https URLs can be fetched, not ftp:"));
        assertTrue(fails("example.com/x").getMessage().contains("without a scheme"));
        assertTrue(fails("http://user:pw@example.com/").getMessage().contains("credentials"));
        assertTrue(fails("http://exa mple.com/").getMessage().startsWith("Not a valid URL"));
    }

    @Test
    void privateAddressesAreRefusedUnlessTheConfigAllowsThem() {
        context.config.clear();
        for (String url : List.of(base + "/page", "http://localhost:1/", "http://10.1.2.3/", "http://192.168.0.1/",
                "http://169.254.169.254/latest/meta-data/", "http://[::1]:8080/", "http://[fd00::1]/",
                "http://0.0.0.0/", "http://100.64.0.1/", "http://[::ffff:127.0.0.1]/")) {
            String message = fails(url).getMessage();
            assertTrue(message.startsWith("Refused: ") && message.contains("\"net\": {\"allowPrivate\": true}"),
                    url + ": " + message);
        }
        context.config.put("net", Map.of("allowPrivate", "yes"));
        assertTrue(fails(base + "/page").getMessage().contains("net.allowPrivate must be true or false"));
    }

    @Test
    void aRedirectToAPrivateAddressIsCheckedToo() {
        // a public host cannot be served here, so check the rule through Addresses directly
        assertEquals(null, Addresses.nonPublic(address("93.184.215.14")));
        assertEquals(null, Addresses.nonPublic(address("2606:2800:21f:cb07:6820:80da:af6b:8b2c")));
        assertEquals("a loopback address", Addresses.nonPublic(address("127.0.0.2")));
        assertEquals("a link-local address", Addresses.nonPublic(address("169.254.169.254")));
        assertEquals("a private-network address", Addresses.nonPublic(address("172.16.0.1")));
        assertEquals("a loopback address", Addresses.nonPublic(address("64:ff9b::7f00:1")));
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
