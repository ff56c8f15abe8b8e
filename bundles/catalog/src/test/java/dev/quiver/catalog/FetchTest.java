package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FetchTest {

    @Test
    void loopbackHttpIsFetchedAndMissingOrUnreachableLocationsSayWhy() throws Exception {
        byte[] body = "<repository/>".getBytes(StandardCharsets.UTF_8);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (exchange.getRequestURI().getPath().equals("/index.xml")) {
                    exchange.sendResponseHeaders(200, body.length);
                    exchange.getResponseBody().write(body);
                } else {
                    exchange.sendResponseHeaders(404, -1);
                }
            }
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
            assertArrayEquals(body, Fetch.bytes(URI.create(base + "index.xml"), Fetch.MAX_INDEX));
            assertThrows(FileNotFoundException.class, () -> Fetch.bytes(URI.create(base + "index.xml.sig"), 100));
            IOException big = assertThrows(IOException.class, () -> Fetch.bytes(URI.create(base + "index.xml"), 4));
            assertTrue(big.getMessage().contains("more than the 4 bytes allowed"), big.getMessage());
        } finally {
            server.stop(0);
        }

        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        URI unreachable = URI.create("http://127.0.0.1:" + closed + "/index.xml");
        IOException refused = assertThrows(IOException.class, () -> Fetch.bytes(unreachable, Fetch.MAX_INDEX));
        assertTrue(refused.getMessage().startsWith("cannot reach " + unreachable + ": "), refused.getMessage());
        assertFalse(refused.getMessage().contains("null"), refused.getMessage());

        IOException plain = assertThrows(IOException.class,
                () -> Fetch.bytes(URI.create("http://example.com/index.xml"), Fetch.MAX_INDEX));
        assertTrue(plain.getMessage().contains("plain http is refused"), plain.getMessage());
    }
}
