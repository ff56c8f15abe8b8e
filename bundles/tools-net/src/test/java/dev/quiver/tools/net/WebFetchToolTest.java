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

/**
 * web_fetch against real loopback servers; the context's config allows private hosts to reach them.
 * Public hosts are never contacted: a test that needs one gives a name a public address through the
 * test's resolver and expects a refusal before any connection.
 */
class WebFetchToolTest {

    private static HttpServer server;
    private static String base;

    private final TestNet.Resolver resolver = new TestNet.Resolver();
    private final WebFetchTool tool = new WebFetchTool(new Fetcher(resolver, null));
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
        server.createContext("/to-public-http", ex -> redirect(ex, "http://public.test/page"));
        server.createContext("/to-credentials", ex -> redirect(ex, "http://user:pw@localhost:" + server.getAddress().getPort() + "/page"));
        server.createContext("/latin1-meta", ex -> TestNet.send(ex, 200, "text/html", ("<html><head><meta charset=\"iso-8859-1\">"
                + "<title>Caf\u00e9</title></head><body><p>cr\u00e8me br\u00fbl\u00e9e</p></body></html>").getBytes(StandardCharsets.ISO_8859_1)));
        server.createContext("/latin1-http-equiv", ex -> TestNet.send(ex, 200, "text/html", ("<html><head><meta http-equiv=\"Content-Type\" "
                + "content=\"text/html; charset=windows-1252\"></head><body><p>\u201cquoted\u201d \u20ac5</p></body></html>")
                .getBytes(java.nio.charset.Charset.forName("windows-1252"))));
        server.createContext("/latin1-header", ex -> TestNet.send(ex, 200, "text/plain; charset=ISO-8859-1",
                "na\u00efve".getBytes(StandardCharsets.ISO_8859_1)));
        server.createContext("/header-beats-meta", ex -> TestNet.send(ex, 200, "text/html; charset=utf-8",
                "<html><head><meta charset=\"iso-8859-1\"></head><body><p>\u00fcber</p></body></html>".getBytes(StandardCharsets.UTF_8)));
        server.createContext("/huge-header", ex -> {
            ex.getResponseHeaders().set("X-Filler", "a".repeat(100_000));
            TestNet.send(ex, 200, "text/plain", "never read");
        });
        server.createContext("/octets", ex -> TestNet.send(ex, 200, "application/octet-stream", new byte[] {1, 2, 3}));
        server.createContext("/pdf", ex -> TestNet.send(ex, 200, "application/pdf; charset=binary", "%PDF-1.7"));
        server.createContext("/nul-text", ex -> TestNet.send(ex, 200, "text/plain", new byte[] {'a', 0, 'b'}));
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
    void theSubjectIsTheNormalisedUrl() throws Exception {
        for (String spelling : List.of(" https://evil.com/a ", "HTTPS://EVIL.COM:443/a", "https://evil.com./a",
                "https://good.com@evil.com/a", "https://%65vil.com/a", "https://evil.com/x/../a", "https://evil.com/a#f")) {
            assertEquals(List.of(Subject.url("https://evil.com/a")), tool.subjects(Arguments.of(Map.of("url", spelling))),
                    spelling);
        }
        assertEquals(List.of(Subject.url("http://127.0.0.1/")), tool.subjects(Arguments.of(Map.of("url", "http://0x7f.1"))));
        assertThrows(ToolException.class, () -> tool.subjects(Arguments.empty()));
        assertThrows(ToolException.class, () -> tool.subjects(Arguments.of(Map.of("url", "https://evil.com\\@good.com/"))));
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
        String message = fails(base + "/to-ftp").getMessage();
        assertTrue(message.startsWith(base + "/to-ftp redirected to ftp://example.com/file, which was not followed: "
                + "Only http and https URLs can be fetched, not ftp:"), message);
        assertTrue(fails(base + "/to-file").getMessage().contains("not file:"));
    }

    @Test
    void aRedirectToAnotherHostIsFollowedWhenItPassesTheChecksAndEveryHopIsReported() throws Exception {
        int port = server.getAddress().getPort();
        String text = fetch(base + "/to-other-host");
        assertTrue(text.startsWith("[http://localhost:" + port + "/page (from " + base + "/to-other-host), HTTP 200, "
                + "text/html]\nRedirected: " + base + "/to-other-host (302) -> http://localhost:" + port + "/page\n"), text);
        assertTrue(text.contains("# Heading One"), text);
        assertEquals(1, resolver.lookups("localhost"), "the new host is resolved once, for its check and connection");
    }

    @Test
    void aRedirectThePermissionRulesWouldRefuseOrAskAboutOnAnotherHostIsReportedNotFollowed() throws Exception {
        int port = server.getAddress().getPort();
        String target = "http://localhost:" + port + "/page";
        context.permissions = subjects -> subjects.get(0).value().startsWith("http://localhost:")
                ? dev.quiver.api.ToolContext.Permission.ASKS : dev.quiver.api.ToolContext.Permission.ALLOWED;
        assertEquals(base + "/to-other-host redirects (HTTP 302) to " + target + ", which was not followed: it leads to "
                + "another host, which needs the user's approval. To read it, call web_fetch with that URL.",
                fetch(base + "/to-other-host"));
        assertEquals(List.of(dev.quiver.api.Subject.url(target)), context.permissionsAsked.get(0),
                "the rules are asked about the normalised target");
        assertEquals(0, resolver.lookups("localhost"), "a host not followed was looked up");

        // on the same host an ask is covered by the call's own approval; a deny is not
        String same = fetch(base + "/redirect/1");
        assertTrue(same.contains("# Heading One"), same);
        context.permissions = subjects -> subjects.get(0).value().endsWith("/page")
                ? dev.quiver.api.ToolContext.Permission.DENIED : dev.quiver.api.ToolContext.Permission.ASKS;
        String denied = fetch(base + "/redirect/0");
        assertEquals(base + "/redirect/0 redirects (HTTP 302) to " + base + "/page, which was not followed: the "
                + "permission rules refuse it. To read it, call web_fetch with that URL.", denied);
    }

    @Test
    void aRedirectHopGoesThroughTheChecksOfAFirstUrl() {
        // a public host needs https: the hop is refused before any connection to it
        resolver.answer("public.test", "93.184.215.14");
        String message = fails(base + "/to-public-http").getMessage();
        assertTrue(message.startsWith(base + "/to-public-http redirected (HTTP 302) to http://public.test/page, which "
                + "was not followed. Refused: plain http to public.test, a public host; use https (https://public.test/page)."),
                message);
        assertTrue(fails(base + "/to-credentials").getMessage().contains("credentials"));
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
    void aCancelledCallStopsItsRequest() {
        long start = System.nanoTime();
        Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            context.cancelled.set(true);
        });
        canceller.start();
        String message = fails(base + "/slow").getMessage();
        assertEquals("Cancelled while fetching " + base + "/slow.", message);
        assertTrue(System.nanoTime() - start < 2_000_000_000L, "took too long");
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
    void answerHeadersAreBoundedToo() {
        String message = fails(base + "/huge-header").getMessage();
        assertTrue(message.startsWith("Could not fetch " + base + "/huge-header: ") && message.contains("line length"),
                message);
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
    void binaryContentIsRefusedNamingItsType() {
        assertEquals(base + "/image is image/png, not text; web_fetch reads text pages only (HTML, plain text, JSON, XML).",
                fails(base + "/image").getMessage());
        assertTrue(fails(base + "/octets").getMessage().startsWith(base + "/octets is application/octet-stream, not text"));
        assertTrue(fails(base + "/pdf").getMessage().startsWith(base + "/pdf is application/pdf, not text"));
        assertEquals(base + "/nul-text returned binary content labelled text/plain; web_fetch reads text pages only.",
                fails(base + "/nul-text").getMessage());
    }

    @Test
    void theCharsetComesFromTheHeaderElseFromTheMetaTag() throws Exception {
        String meta = fetch(base + "/latin1-meta");
        assertTrue(meta.contains("Title: Caf\u00e9\n") && meta.contains("cr\u00e8me br\u00fbl\u00e9e"), meta);
        String equiv = fetch(base + "/latin1-http-equiv");
        assertTrue(equiv.contains("\u201cquoted\u201d \u20ac5"), equiv);
        assertTrue(fetch(base + "/latin1-header").endsWith("\n\nna\u00efve"));
        assertTrue(fetch(base + "/header-beats-meta").contains("\u00fcber"));
    }

    @Test
    void onlyHttpAndHttpsAreFetched() {
        assertTrue(fails("file:///etc/passwd").getMessage().startsWith("Only http and https URLs can be fetched, not file:"));
        assertTrue(fails("ftp://example.com/x").getMessage().startsWith("Only http and https URLs can be fetched, not ftp:"));
        assertTrue(fails("example.com/x").getMessage().contains("without a scheme"));
        assertTrue(fails("http://user:pw@localhost/").getMessage().contains("credentials"));
        assertTrue(fails("http://exa mple.com/").getMessage().startsWith("Not a valid URL"));
    }

    @Test
    void httpsIsRequiredForPublicHosts() {
        context.config.clear();
        resolver.answer("public.test", "93.184.215.14");
        String message = fails("http://public.test/docs?q=1").getMessage();
        assertEquals("Refused: plain http to public.test, a public host; use https (https://public.test/docs?q=1). Plain "
                + "http reaches only hosts the user's config lists in \"net\": {\"allowHttp\": [...]}.", message);
        // with allowPrivate, http reaches a host whose addresses are all private, and no public one
        context.config.put("net", Map.of("allowPrivate", true));
        resolver.answer("mixed.test", "127.0.0.1", "93.184.215.14");
        assertTrue(fails("http://mixed.test/").getMessage().startsWith("Refused: plain http to mixed.test"));
        assertTrue(fails("http://public.test/").getMessage().startsWith("Refused: plain http to public.test"));
    }

    @Test
    void allowHttpListsTheHostsPlainHttpMayReach() throws Exception {
        Fetcher fetcher = new Fetcher(resolver.answer("docs.test", "93.184.215.14").answer("wiki.corp.test", "8.8.8.8")
                .answer("corp.test", "8.8.4.4"), null);
        NetConfig config = config(Map.of("allowHttp", List.of("Docs.Test.", "*.corp.test")));
        // check() resolves and checks without connecting: these addresses are public and never contacted
        assertEquals("93.184.215.14", fetcher.check(WebUrl.parse("http://docs.test/"), config).addresses()[0].getHostAddress());
        fetcher.check(WebUrl.parse("http://wiki.corp.test:8080/"), config);
        assertThrows(ToolException.class, () -> fetcher.check(WebUrl.parse("http://corp.test/"), config));
        assertThrows(ToolException.class, () -> fetcher.check(WebUrl.parse("http://docs.test.evil/"), config));
        // allowHttp lifts the https rule only: a listed host at a private address is still refused
        resolver.answer("lan.test", "192.168.1.10");
        NetConfig lan = config(Map.of("allowHttp", List.of("lan.test")));
        assertTrue(assertThrows(ToolException.class, () -> fetcher.check(WebUrl.parse("http://lan.test/"), lan))
                .getMessage().startsWith("Refused: lan.test resolves to 192.168.1.10, a private-network address."));
        context.config.put("net", Map.of("allowHttp", "docs.test"));
        assertTrue(fails(base + "/page").getMessage().contains("net.allowHttp must be a list of host names"));
        context.config.put("net", Map.of("allowHttp", List.of("not a host")));
        assertTrue(fails(base + "/page").getMessage().contains("\"not a host\", which is not a host name"));
    }

    private NetConfig config(Map<String, Object> net) throws ToolException {
        ToolTestContext c;
        try {
            c = new ToolTestContext(root);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        c.config.put("net", net);
        return NetConfig.of(c);
    }

    @Test
    void theHostIsResolvedOnceAndTheConnectionGoesToThatAnswer() throws Exception {
        // a name that answers 127.0.0.1 first and 127.0.0.2 after: a second lookup would reach the other server
        int port = server.getAddress().getPort();
        HttpServer rebound = TestNet.server("127.0.0.2", port);
        rebound.createContext("/page", ex -> TestNet.send(ex, 200, "text/plain", "REBOUND"));
        rebound.start();
        try {
            resolver.answer("rebind.test", "127.0.0.1").answer("rebind.test", "127.0.0.2");
            String text = fetch("http://rebind.test:" + port + "/page");
            assertTrue(text.contains("# Heading One") && !text.contains("REBOUND"), text);
            assertEquals(1, resolver.lookups("rebind.test"), resolver.asked.toString());
            // the next call resolves anew and gets the second answer, which is checked like the first
            assertTrue(fetch("http://rebind.test:" + port + "/page").contains("REBOUND"));
            assertEquals(2, resolver.lookups("rebind.test"));
        } finally {
            rebound.stop(0);
        }
    }

    @Test
    void aNameThatResolvesToAPrivateAddressIsRefusedOnItsResolvedAddress() {
        context.config.clear();
        resolver.answer("attacker.test", "93.184.215.14", "127.0.0.1");
        resolver.answer("metadata.test", "169.254.169.254");
        assertTrue(fails("https://attacker.test/").getMessage().startsWith(
                "Refused: attacker.test resolves to 127.0.0.1, a loopback address."));
        assertTrue(fails("https://metadata.test/latest/meta-data/").getMessage().startsWith(
                "Refused: metadata.test resolves to 169.254.169.254, a link-local address."));
        // the system's resolver: localhost is a name, and its resolved address is what is refused
        assertTrue(fails("https://localhost/").getMessage().startsWith("Refused: localhost resolves to 127.0.0.1"));
        assertTrue(fails("https://LOCALHOST./").getMessage().startsWith("Refused: localhost resolves to 127.0.0.1"));
    }

    @Test
    void tlsVerifiesTheCertificateAgainstTheHostNameAndSendsItAsSni(@TempDir Path keys) throws Exception {
        TestNet.Tls tls = TestNet.tls(keys, "secure.test");
        List<String> sni = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        com.sun.net.httpserver.HttpsServer https = TestNet.httpsServer(tls.server(), sni);
        https.createContext("/page", ex -> TestNet.send(ex, 200, "text/plain", "over TLS"));
        https.start();
        try {
            int port = https.getAddress().getPort();
            resolver.answer("secure.test", "127.0.0.1").answer("wrong.test", "127.0.0.1");
            WebFetchTool secure = new WebFetchTool(new Fetcher(resolver, tls.client()));
            String text = secure.call(Arguments.of(Map.of("url", "https://secure.test:" + port + "/page")), context).text();
            assertTrue(text.endsWith("\n\nover TLS"), text);
            assertEquals(List.of("secure.test"), sni);
            ToolException wrong = assertThrows(ToolException.class, () -> secure.call(
                    Arguments.of(Map.of("url", "https://wrong.test:" + port + "/page")), context));
            assertTrue(wrong.getMessage().startsWith("Could not fetch https://wrong.test:" + port + "/page: TLS failed: ")
                    && wrong.getMessage().contains("wrong.test"), wrong.getMessage());
            // the system's trust store does not know the test's certificate
            ToolException untrusted = assertThrows(ToolException.class, () -> tool.call(
                    Arguments.of(Map.of("url", "https://secure.test:" + port + "/page")), context));
            assertTrue(untrusted.getMessage().contains("TLS failed"), untrusted.getMessage());
        } finally {
            https.stop(0);
        }
    }

    @Test
    void privateAddressesAreRefusedUnlessTheConfigAllowsThem() {
        context.config.clear();
        // the tool refuses before connecting; only loopback spellings go through it, the rest through check()
        for (String url : List.of(base + "/page", "http://localhost:1/", "http://[::1]:8080/", "http://2130706433/",
                "http://0177.0.0.1/", "http://0x7f.0.0.1/", "http://127.1/", "http://0x7f.1/", "http://[::ffff:127.0.0.1]/",
                "http://[::ffff:7f00:1]/", "http://localhost./", "http://0.0.0.0/", "http://[::]/")) {
            String message = fails(url).getMessage();
            assertTrue(message.startsWith("Refused: ") && message.contains("\"net\": {\"allowPrivate\": true}"),
                    url + ": " + message);
        }
        context.config.put("net", Map.of("allowPrivate", "yes"));
        assertTrue(fails(base + "/page").getMessage().contains("net.allowPrivate must be true or false"));
        context.config.put("net", List.of());
        assertTrue(fails(base + "/page").getMessage().contains("\"net\" must be an object"));
    }

    @Test
    void theSsrfCorpusIsRefusedInEveryEncoding() throws Exception {
        Fetcher fetcher = new Fetcher(resolver.answer("intranet.test", "10.0.0.5")
                .answer("six.test", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "fd00::5"), null);
        Map<String, String> corpus = new java.util.LinkedHashMap<>();
        corpus.put("http://2130706433/", "127.0.0.1 is a loopback address");
        corpus.put("http://0177.0.0.1/", "127.0.0.1 is a loopback address");
        corpus.put("http://0x7f.0.0.1/", "127.0.0.1 is a loopback address");
        corpus.put("http://127.1/", "127.0.0.1 is a loopback address");
        corpus.put("http://0x7f.1/", "127.0.0.1 is a loopback address");
        corpus.put("http://127.255.255.254/", "a loopback address");
        corpus.put("http://[::1]/", "a loopback address");
        corpus.put("http://[::ffff:127.0.0.1]/", "a loopback address");
        corpus.put("http://[::ffff:7f00:1]/", "a loopback address");
        corpus.put("http://[::127.0.0.1]/", "a loopback address");
        corpus.put("http://[64:ff9b::7f00:1]/", "a loopback address");
        corpus.put("http://[2002:7f00:1::]/", "a 6to4 address embedding a loopback address");
        corpus.put("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address");
        corpus.put("http://0xa9fea9fe/", "169.254.169.254 is a link-local address");
        corpus.put("http://[::ffff:169.254.169.254]/", "a link-local address");
        corpus.put("http://[fe80::1]/", "a link-local address");
        corpus.put("http://[FE80::a:b:c:d]/", "a link-local address");
        corpus.put("http://10.0.0.1/", "a private-network address");
        corpus.put("http://10.1/", "10.0.0.1 is a private-network address");
        corpus.put("http://172.16.0.1/", "a private-network address");
        corpus.put("http://172.31.255.255/", "a private-network address");
        corpus.put("http://192.168.1.1/", "a private-network address");
        corpus.put("http://[::ffff:192.168.1.1]/", "a private-network address");
        corpus.put("http://[fc00::1]/", "a private-network address");
        corpus.put("http://[fd12:3456:789a::1]/", "a private-network address");
        corpus.put("http://[fec0::1]/", "a private-network address");
        corpus.put("http://100.64.0.1/", "a shared (carrier-grade NAT) address");
        corpus.put("http://100.127.255.254/", "a shared (carrier-grade NAT) address");
        corpus.put("http://224.0.0.1/", "a multicast address");
        corpus.put("http://239.255.255.250/", "a multicast address");
        corpus.put("http://[ff02::1]/", "a multicast address");
        corpus.put("http://[ff0e::1]/", "a multicast address");
        corpus.put("http://0.0.0.0/", "the unspecified address");
        corpus.put("http://0/", "the unspecified address");
        corpus.put("http://0.1.2.3/", "an address in 0.0.0.0/8");
        corpus.put("http://[::]/", "the unspecified address");
        corpus.put("http://240.0.0.1/", "a reserved address");
        corpus.put("http://255.255.255.255/", "the broadcast address");
        corpus.put("http://198.18.0.1/", "a benchmarking address");
        corpus.put("http://198.19.255.254/", "a benchmarking address");
        // the rest of IANA's special-purpose registries: one case per range that is not globally reachable
        corpus.put("http://192.0.0.8/", "an IETF protocol assignment address");
        corpus.put("http://192.0.2.1/", "a documentation address");
        corpus.put("http://198.51.100.7/", "a documentation address");
        corpus.put("http://203.0.113.9/", "a documentation address");
        corpus.put("http://192.88.99.1/", "a 6to4 relay anycast address");
        corpus.put("http://[::ffff:0:127.0.0.1]/", "an IPv4-translated (SIIT) address embedding a loopback address");
        corpus.put("http://[::ffff:0:a9fe:a9fe]/", "an IPv4-translated (SIIT) address embedding a link-local address");
        corpus.put("http://[::10.0.0.1]/", "an IPv4-compatible address embedding a private-network address");
        corpus.put("http://[64:ff9b::10.0.0.1]/", "a NAT64 address embedding a private-network address");
        corpus.put("http://[64:ff9b::a9fe:a9fe]/", "a NAT64 address embedding a link-local address");
        corpus.put("http://[64:ff9b:1::a00:1]/", "a local-use NAT64 address");
        corpus.put("http://[64:ff9b:1:ffff::5db8:d70e]/", "a local-use NAT64 address");
        corpus.put("http://[100::1]/", "a discard-only address");
        corpus.put("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "a Teredo address");
        corpus.put("http://[2001:0:5db8:d70e::f5ff:fffe]/", "a Teredo address");
        corpus.put("http://[2001:2::1]/", "a benchmarking address");
        corpus.put("http://[2001:1::1]/", "an IETF protocol assignment address");
        corpus.put("http://[2001:1ff:ffff::1]/", "an IETF protocol assignment address");
        corpus.put("http://[2001:db8::1]/", "a documentation address");
        corpus.put("http://[3fff::1]/", "a documentation address");
        corpus.put("http://[2002:a00:1::]/", "a 6to4 address embedding a private-network address");
        corpus.put("http://[2002:c0a8:101::1]/", "a 6to4 address embedding a private-network address");
        corpus.put("http://[2002:a9fe:a9fe::]/", "a 6to4 address embedding a link-local address");
        corpus.put("http://[5f00::1]/", "a segment routing (SRv6) address");
        corpus.put("http://[1::1]/", "a reserved address (outside global unicast, 2000::/3)");
        corpus.put("http://[4000::1]/", "a reserved address (outside global unicast, 2000::/3)");
        corpus.put("http://[ff05::2]/", "a multicast address");
        corpus.put("http://localhost/", "localhost resolves to 127.0.0.1, a loopback address");
        corpus.put("http://localhost./", "localhost resolves to 127.0.0.1, a loopback address");
        corpus.put("https://intranet.test/", "intranet.test resolves to 10.0.0.5, a private-network address");
        corpus.put("https://six.test/", "six.test resolves to fd00::5, a private-network address");
        for (Map.Entry<String, String> c : corpus.entrySet()) {
            ToolException e = assertThrows(ToolException.class, () -> fetcher.check(WebUrl.parse(c.getKey()),
                    NetConfig.DEFAULT), c.getKey());
            assertTrue(e.getMessage().startsWith("Refused: " + WebUrl.parse(c.getKey()).bareHost()) && e.getMessage().contains(c.getValue()),
                    c.getKey() + ": " + e.getMessage());
        }
        // and public addresses pass, in their spellings too (checked only: nothing connects to them)
        for (String url : List.of("https://93.184.215.14/", "https://1572394766/", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/",
                "https://[::ffff:93.184.215.14]/", "https://100.128.0.1/", "https://172.32.0.1/", "https://[2002:5db8:d70e::]/",
                "https://8.8.8.8/", "https://1.1.1.1/", "https://192.0.3.1/", "https://198.20.0.1/", "https://198.17.255.255/",
                "https://192.88.100.1/", "https://203.0.114.1/", "https://223.255.255.254/", "https://[64:ff9b::5db8:d70e]/",
                "https://[2001:4860:4860::8888]/", "https://[2001:200::1]/", "https://[2001:db9::1]/", "https://[2003::1]/")) {
            fetcher.check(WebUrl.parse(url), NetConfig.DEFAULT);
        }
    }
}
