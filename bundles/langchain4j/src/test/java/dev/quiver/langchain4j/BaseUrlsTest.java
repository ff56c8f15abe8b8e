package dev.quiver.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The managed policy's allowed model servers hold however the server was chosen. */
class BaseUrlsTest {

    private static final String DEFAULT = "https://api.openai.com/v1";

    private static String chosen(Optional<String> flag, Map<String, String> environment, List<String> allowed) {
        return BaseUrls.chosen(new ModelSettings("m", flag, Duration.ofSeconds(1), allowed), environment::get,
                "OPENAI_BASE_URL", DEFAULT);
    }

    @Test
    void withoutAListAnyServerIsUsedFlagThenEnvironmentThenDefault() {
        assertEquals("http://127.0.0.1:8000/v1", chosen(Optional.of(" http://127.0.0.1:8000/v1 "), Map.of(), List.of()));
        assertEquals("http://env/v1", chosen(Optional.empty(), Map.of("OPENAI_BASE_URL", "http://env/v1"), List.of()));
        assertEquals(DEFAULT, chosen(Optional.empty(), Map.of(), List.of()));
    }

    @Test
    void aServerTheListDoesNotAdmitIsRefusedFromEveryRouteIncludingTheDefault() {
        List<String> allowed = List.of("https://gateway.example.com/*");
        assertEquals("https://gateway.example.com/openai/v1",
                chosen(Optional.of("https://gateway.example.com/openai/v1"), Map.of(), allowed));
        for (Optional<String> flag : List.of(Optional.of("http://attacker.example/v1"),
                Optional.of("https://gateway.example.com.attacker.example/v1"), Optional.<String>empty())) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> chosen(flag, Map.of(), allowed));
            assertTrue(refused.getMessage().contains("managed policy") && refused.getMessage().contains("gateway"),
                    refused.getMessage());
        }
        assertThrows(IllegalArgumentException.class,
                () -> chosen(Optional.empty(), Map.of("OPENAI_BASE_URL", "http://attacker.example/v1"), allowed));
    }

    @Test
    void aStarNeverCrossesTheHostNorALinkUpThePath() {
        assertTrue(BaseUrls.allowedBy("https://*.corp.example/*", "https://llm.corp.example/v1"));
        assertTrue(BaseUrls.allowedBy("https://*.corp.example/*", "HTTPS://LLM.corp.example/v1?x=1"));
        assertTrue(BaseUrls.allowedBy("http://127.0.0.1:*/v1", "http://127.0.0.1:8000/v1"));
        for (String url : List.of("https://evil.example/.corp.example/v1", "https://evil.example/?.corp.example/",
                "https://llm.corp.example@evil.example/v1", "https://evil.example#.corp.example/",
                "http://llm.corp.example/v1", "https://llm.corp.example.evil.example/v1", "not a url")) {
            assertTrue(!BaseUrls.allowedBy("https://*.corp.example/*", url), url);
        }
        assertTrue(BaseUrls.allowedBy("https://gw.example/openai/*", "https://gw.example/openai/v1"));
        assertTrue(!BaseUrls.allowedBy("https://gw.example/openai/*", "https://gw.example/openai/../admin/v1"),
                "a path is judged normalised");
        assertTrue(!BaseUrls.allowedBy("https://gw.example/*", "https://gw.example/../x"), ".. above the root");
    }

    @Test
    void aUrlEndingInAnEndpointTheProviderAddsIsRefusedNamingTheRoot() {
        String given = "http://127.0.0.1:8000/v1/chat/completions/";
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> BaseUrls.refuseEndpoint(
                given, java.net.URI.create(given), "/chat/completions", "/completions"));
        assertEquals("Base URL must be the API's root, without the endpoint: Quiver adds /chat/completions itself. "
                + "Use http://127.0.0.1:8000/v1 instead of " + given + ".", refused.getMessage());
        // a root whose path only contains the words passes
        BaseUrls.refuseEndpoint("http://h/chat/completions-proxy/v1", java.net.URI.create("http://h/chat/completions-proxy/v1"),
                "/chat/completions");
    }
}
