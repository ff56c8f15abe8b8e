package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.quiver.distribution.QuiverProcess.Run;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The net set in the assembled {@code bin/quiver}: its two tools are listed once the set is on, a
 * deny rule written for one spelling of a URL holds for every spelling (the real bundle names the
 * subject, the real engine matches it), and a fetch runs through the embedded HTTP client in Felix.
 */
class NetEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path workspace(String name) throws IOException {
        return Files.createDirectories(temp.resolve(name));
    }

    @Test
    void theNetSetListsWebFetchAndWebSearchWhichAsk() throws Exception {
        Path workspace = workspace("tools");
        QuiverProcess.userConfig(workspace, "{\"toolSets\": [\"net\"]}");
        Run run = QuiverProcess.run(workspace, "tools", "--json");
        assertEquals(0, run.exitCode(), run.stderr());
        Map<String, String> net = new TreeMap<>();
        for (JsonNode tool : JSON.readTree(run.stdout())) {
            if ("net".equals(tool.path("set").asText())) {
                net.put(tool.get("name").asText(), tool.get("access").asText() + " " + tool.get("decision").asText() + " "
                        + tool.get("bundle").asText());
                assertTrue(tool.get("schema_bytes").asInt() < 450, tool.toString());
            }
        }
        assertEquals(Map.of("web_fetch", "network ask dev.quiver.tools.net", "web_search", "network ask dev.quiver.tools.net"),
                net);
    }

    @Test
    void theBundleCarriesThePublicSuffixListItsHostNameCheckReads() throws Exception {
        // without it HttpClient's verifier silently knows one suffix, "com", and judges wildcard certificates by that
        Path jar;
        try (java.util.stream.Stream<Path> jars = Files.list(QuiverProcess.distribution().resolve("bundle"))) {
            jar = jars.filter(p -> p.getFileName().toString().startsWith("dev.quiver.tools.net")).findFirst().orElseThrow();
        }
        try (java.util.jar.JarFile bundle = new java.util.jar.JarFile(jar.toFile())) {
            assertTrue(bundle.getEntry("org/publicsuffix/list/effective_tld_names.dat") != null, jar.toString());
            String imports = bundle.getManifest().getMainAttributes().getValue("Import-Package");
            assertTrue(imports.contains("org.slf4j") && !imports.contains("org.apache.hc"), imports);
        }
    }

    @Test
    void aDenyRuleForOneSpellingOfAUrlDeniesEverySpelling() throws Exception {
        Path workspace = workspace("rules");
        QuiverProcess.userConfig(workspace, "{\"toolSets\": [\"net\"], \"permission\": {\"web_fetch\": "
                + "{\"https://evil.com/*\": \"deny\"}, \"web_search\": {\"*password*\": \"deny\"}}}");
        List<String> spellings = List.of("https://evil.com/", "HTTPS://EVIL.COM:443/", "https://evil.com./",
                "https://evil.com", "https://evil.com?x", "https://evil.com#top", "https://good.com@evil.com/",
                "https://user:pw@evil.com/x", "https://%65vil.com/", "https://EVIL.com/a/../b", "https://evil\u3002com/",
                "  https://evil.com/page  ");
        StringBuilder input = new StringBuilder();
        for (String url : spellings) {
            input.append(JSON.writeValueAsString(Map.of("tool", "web_fetch", "args", Map.of("url", url)))).append('\n');
        }
        input.append("{\"tool\":\"web_fetch\",\"args\":{\"url\":\"https://good.com/evil.com/\"}}\n");
        input.append("{\"tool\":\"web_search\",\"args\":{\"query\":\"reset my password\"}}\n");
        input.append("{\"tool\":\"web_search\",\"args\":{\"query\":\"rust ownership\"}}\n");
        Run checks = QuiverProcess.run(workspace, Map.of(), input.toString(), "check", "--batch", "-");
        assertEquals(0, checks.exitCode(), checks.stderr());
        List<JsonNode> answers = new ArrayList<>();
        for (String line : checks.stdout().split("\n")) {
            answers.add(JSON.readTree(line));
        }
        assertEquals(spellings.size() + 3, answers.size(), checks.stdout());
        for (int i = 0; i < spellings.size(); i++) {
            JsonNode answer = answers.get(i);
            assertEquals("deny", answer.get("decision").asText(), spellings.get(i) + ": " + answer);
            assertEquals("rule", answer.get("by").asText(), spellings.get(i) + ": " + answer);
        }
        assertEquals("ask", answers.get(spellings.size()).get("decision").asText(), "another host is not caught");
        assertEquals("deny", answers.get(spellings.size() + 1).get("decision").asText(), "the query is web_search's subject");
        assertEquals("ask", answers.get(spellings.size() + 2).get("decision").asText());
    }

    @Test
    void aFetchRunsThroughTheEmbeddedClientAndPrivateAddressesNeedTheUsersConfig() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/page", ex -> {
            byte[] body = "<html><head><title>Local</title></head><body><h1>Served here</h1></body></html>"
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/page";
            String args = JSON.writeValueAsString(Map.of("url", url));
            Path refused = workspace("refused");
            QuiverProcess.userConfig(refused, "{\"toolSets\": [\"net\"]}");
            Run denied = QuiverProcess.run(refused, "call", "web_fetch", args, "--yolo");
            assertEquals(1, denied.exitCode(), denied.stdout());
            assertTrue(denied.stderr().contains("Refused: 127.0.0.1 is a loopback address."), denied.stderr());

            // a workspace's config cannot open private addresses, even trusted for the run
            Path planted = workspace("planted");
            QuiverProcess.userConfig(planted, "{\"toolSets\": [\"net\"]}");
            Files.createDirectories(planted.resolve(".quiver"));
            Files.writeString(planted.resolve(".quiver/config.json"), "{\"net\": {\"allowPrivate\": true}}");
            Run stillDenied = QuiverProcess.run(planted, "call", "web_fetch", args, "--yolo", "--trust-workspace");
            assertEquals(1, stillDenied.exitCode(), stillDenied.stdout());
            assertTrue(stillDenied.stderr().contains("Refused: 127.0.0.1 is a loopback address."), stillDenied.stderr());

            Path allowed = workspace("allowed");
            QuiverProcess.userConfig(allowed, "{\"toolSets\": [\"net\"], \"net\": {\"allowPrivate\": true}}");
            Run fetched = QuiverProcess.run(allowed, "call", "web_fetch", args, "--yolo");
            assertEquals(0, fetched.exitCode(), fetched.stderr());
            assertTrue(fetched.stdout().startsWith("[" + url + ", HTTP 200, text/html]\nTitle: Local\n")
                    && fetched.stdout().contains("# Served here"), fetched.stdout());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aRedirectToAHostTheRulesDenyIsReportedNotFollowedAndAnAllowedOneIsFollowed() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        int port = server.getAddress().getPort();
        server.createContext("/elsewhere", ex -> {
            ex.getResponseHeaders().set("Location", "http://localhost:" + port + "/secret");
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        server.createContext("/secret", ex -> {
            byte[] body = "the secret page".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try {
            String args = JSON.writeValueAsString(Map.of("url", "http://127.0.0.1:" + port + "/elsewhere"));
            Path denying = workspace("redirect-denied");
            QuiverProcess.userConfig(denying, "{\"toolSets\": [\"net\"], \"net\": {\"allowPrivate\": true}, "
                    + "\"permission\": {\"web_fetch\": {\"http://127.0.0.1:*\": \"allow\", \"http://localhost:*\": \"deny\"}}}");
            Run refused = QuiverProcess.run(denying, "call", "web_fetch", args);
            assertEquals(0, refused.exitCode(), refused.stderr());
            assertTrue(refused.stdout().contains("to http://localhost:" + port + "/secret, which was not followed: the "
                    + "permission rules refuse it."), refused.stdout());
            assertFalse(refused.stdout().contains("the secret page"), refused.stdout());

            Path allowing = workspace("redirect-allowed");
            QuiverProcess.userConfig(allowing, "{\"toolSets\": [\"net\"], \"net\": {\"allowPrivate\": true}, "
                    + "\"permission\": {\"web_fetch\": {\"http://127.0.0.1:*\": \"allow\", \"http://localhost:*\": \"allow\"}}}");
            Run followed = QuiverProcess.run(allowing, "call", "web_fetch", args);
            assertEquals(0, followed.exitCode(), followed.stderr());
            assertTrue(followed.stdout().contains("the secret page"), followed.stdout());
        } finally {
            server.stop(0);
        }
    }
}
