package dev.quiver.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.mcp.Json;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver mcp} over stdio, with the stdio streams of a real loopback socket and a kernel
 * whose tools change real files: calls of one connection run in arrival order, one at a time, on
 * a bounded number of threads, and every request is answered.
 */
class StdioOrderingTest {

    @TempDir
    Path workspace;

    private final FileToolsKernel kernel = new FileToolsKernel();
    private McpServerComponent component;
    private Socket client;
    private OutputStream toServer;
    private final BlockingQueue<JsonNode> answers = new LinkedBlockingQueue<>();
    private Thread server;

    @BeforeEach
    void connect() throws Exception {
        component = new McpServerComponent(kernel, "test");
        try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            client = new Socket(InetAddress.getLoopbackAddress(), listening.getLocalPort());
            Socket accepted = listening.accept();
            server = new Thread(() -> {
                try (accepted) {
                    component.serveStdio(SessionOptions.headless(workspace), accepted.getInputStream(),
                            accepted.getOutputStream(), new PrintStream(new ByteArrayOutputStream(), true));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, "stdio-server");
            server.start();
        }
        toServer = client.getOutputStream();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    answers.add(Json.MAPPER.readTree(line));
                }
            } catch (IOException ignored) {
                // the test closed the socket
            }
        }, "stdio-client-reader");
        reader.setDaemon(true);
        reader.start();
        send("{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        assertEquals("init", next().path("id").asText());
    }

    @AfterEach
    void close() throws Exception {
        client.close();
        server.join(TimeUnit.SECONDS.toMillis(30));
        component.deactivate();
    }

    private void send(String lines) throws IOException {
        toServer.write(lines.getBytes(StandardCharsets.UTF_8));
        toServer.flush();
    }

    private JsonNode next() throws InterruptedException {
        JsonNode answer = answers.poll(60, TimeUnit.SECONDS);
        assertNotNull(answer, "no answer within 60 s");
        return answer;
    }

    private static String call(Object id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + Json.write(id) + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
                + tool + "\",\"arguments\":" + arguments + "}}\n";
    }

    private static String text(JsonNode answer) {
        return answer.path("result").path("content").path(0).path("text").asText();
    }

    @Test
    void theReadAnswersWithTheValueOfTheWriteSentJustBeforeIt() throws Exception {
        for (int i = 0; i < 100; i++) {
            send(call("w" + i, "write", "{\"text\":\"value " + i + "\"}") + call("r" + i, "read", "{\"path\":\"note.txt\"}"));
            JsonNode first = next();
            JsonNode second = next();
            JsonNode read = first.path("id").asText().startsWith("r") ? first : second;
            assertEquals("value " + i, text(read), "pair " + i + ": the read ran before the write");
        }
        assertEquals(0, kernel.overlaps.get(), "calls of one session overlapped");
    }

    @Test
    void threeThousandPipelinedCallsAllRunOnBoundedThreadsInArrivalOrder() throws Exception {
        int calls = 3000;
        int before = ManagementFactory.getThreadMXBean().getThreadCount();
        AtomicInteger peak = new AtomicInteger(before);
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(ManagementFactory.getThreadMXBean().getThreadCount(), Math::max);
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sampler.start();
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < calls; i++) {
            all.append(call(i, "append", "{\"text\":\"" + i + "\"}"));
        }
        send(all.toString());
        Map<Integer, JsonNode> byId = new HashMap<>();
        for (int i = 0; i < calls; i++) {
            JsonNode answer = next();
            assertTrue(byId.put(answer.path("id").asInt(), answer) == null, "answered twice: " + answer);
        }
        sampler.interrupt();
        sampler.join();
        List<Integer> ran = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            JsonNode answer = byId.get(i);
            assertNotNull(answer, "call " + i + " got no answer");
            // stdio refuses none: 3,000 small calls are within the reader's bounds
            assertEquals("appended", text(answer), answer.toString());
            ran.add(i);
        }
        List<Integer> logged = Files.readAllLines(workspace.resolve("log.txt")).stream().map(Integer::valueOf).toList();
        assertEquals(ran, logged, "every call ran, in the order it was sent");
        assertTrue(peak.get() - before < 50, "threads grew from " + before + " to " + peak.get());
        assertEquals(0, kernel.overlaps.get());
    }

    @Test
    void aWaitingCallCancelledIsAnsweredAndNeverRunsAndTheRunningOneIsInterrupted() throws Exception {
        send(call("long", "block", "{}"));
        while (kernel.running.get() == 0) {
            Thread.sleep(5); // until the long call runs
        }
        send(call("later", "append", "{\"text\":\"must not run\"}")
                + "{\"jsonrpc\":\"2.0\",\"id\":\"list\",\"method\":\"tools/list\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"later\"}}\n");
        JsonNode list = next();
        assertEquals("list", list.path("id").asText(), "tools/list does not wait behind a running call");
        assertEquals(6, list.path("result").path("tools").size());
        JsonNode cancelled = next();
        assertEquals("later", cancelled.path("id").asText());
        assertEquals(CallQueue.CANCELLED, cancelled.path("error").path("code").asInt(), cancelled.toString());
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"long\"}}\n");
        JsonNode interrupted = next();
        assertEquals("long", interrupted.path("id").asText());
        assertEquals("interrupted", text(interrupted));
        send(call("after", "read", "{\"path\":\"missing.txt\"}"));
        assertEquals("after", next().path("id").asText());
        assertFalse(Files.exists(workspace.resolve("log.txt")), "the cancelled call ran");
    }

    @Test
    void behindFortyWaitingCallsAPingIsAnsweredAndACancelInterruptsTheRunningCall() throws Exception {
        send(call("long", "block", "{}"));
        while (kernel.running.get() == 0) {
            Thread.sleep(5); // until the long call runs
        }
        StringBuilder behind = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            behind.append(call(i, "append", "{\"text\":\"" + i + "\"}"));
        }
        send(behind + "{\"jsonrpc\":\"2.0\",\"id\":\"ping\",\"method\":\"ping\"}\n");
        // the long call never ends by itself, so nothing else could answer first
        JsonNode ping = next();
        assertEquals("ping", ping.path("id").asText(), "the ping waited behind the calls: " + ping);
        assertTrue(ping.has("result"), ping.toString());
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"long\"}}\n");
        JsonNode interrupted = next();
        assertEquals("long", interrupted.path("id").asText());
        assertEquals("interrupted", text(interrupted));
        List<String> appended = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            JsonNode answer = next();
            assertEquals(i, answer.path("id").asInt(), answer.toString());
            appended.add(Integer.toString(i));
        }
        assertEquals(appended, Files.readAllLines(workspace.resolve("log.txt")), "the waiting calls ran in order");
    }

    @Test
    void aLineWithGarbageAfterTheMessageIsAParseErrorAndTheServerReadsOn() throws Exception {
        send("{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}garbage\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"ping\"}\n");
        JsonNode refused = next();
        assertTrue(refused.path("id").isNull(), refused.toString());
        assertEquals(-32700, refused.path("error").path("code").asInt(), refused.toString());
        JsonNode pong = next();
        assertEquals("q", pong.path("id").asText());
        assertTrue(pong.has("result"), pong.toString());
    }
}
