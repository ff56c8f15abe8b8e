package dev.quiver.tools.net;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.StandardConstants;
import javax.net.ssl.TrustManagerFactory;

/** Loopback servers, a resolver a test controls, and a certificate made for the test by keytool. */
final class TestNet {

    private TestNet() {
    }

    /**
     * Answers from a table (each name's answers in turn, the last one repeated), counting lookups;
     * names not in it go to the system's resolver, which answers {@code localhost} and IP spellings.
     */
    static final class Resolver implements Fetcher.Resolver {
        final Map<String, List<InetAddress[]>> answers = new ConcurrentHashMap<>();
        final List<String> asked = Collections.synchronizedList(new ArrayList<>());
        /** The answer for names not in the table, other than localhost; none means the system's resolver. */
        volatile InetAddress[] otherwise;

        Resolver answer(String host, String... addresses) {
            InetAddress[] answer = new InetAddress[addresses.length];
            for (int i = 0; i < addresses.length; i++) {
                answer[i] = address(addresses[i]);
            }
            answers.computeIfAbsent(host, h -> Collections.synchronizedList(new ArrayList<>())).add(answer);
            return this;
        }

        long lookups(String host) {
            return asked.stream().filter(host::equals).count();
        }

        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            asked.add(host);
            List<InetAddress[]> list = answers.get(host);
            if (list == null) {
                return otherwise != null && !host.equals("localhost") ? otherwise.clone() : InetAddress.getAllByName(host);
            }
            long seen = lookups(host);
            return list.get((int) Math.min(seen, list.size()) - 1);
        }
    }

    static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static HttpServer server(String address, int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(address), port), 0);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-http");
            t.setDaemon(true);
            return t;
        }));
        return server;
    }

    static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        send(ex, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    static void redirect(HttpExchange ex, String location) throws IOException {
        ex.getResponseHeaders().set("Location", location);
        ex.sendResponseHeaders(302, -1);
        ex.close();
    }

    /** A key pair and certificate for {@code host}, made by the JDK's keytool: server and client contexts. */
    record Tls(SSLContext server, SSLContext client) {
    }

    static Tls tls(Path folder, String host) throws Exception {
        Path store = folder.resolve(host + ".p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + host,
                "-ext", "SAN=dns:" + host, "-validity", "2", "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new AssertionError("keytool failed: " + output);
        }
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, "changeit".toCharArray());
        SSLContext server = SSLContext.getInstance("TLS");
        server.init(kmf.getKeyManagers(), null, null);

        Certificate certificate = keys.getCertificate("server");
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        trusted.setCertificateEntry("server", certificate);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), null);
        return new Tls(server, client);
    }

    /** An https loopback server that records the SNI host name of every handshake. */
    static HttpsServer httpsServer(SSLContext context, List<String> sniNames) throws IOException {
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(context) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters parameters = getSSLContext().getDefaultSSLParameters();
                parameters.setSNIMatchers(List.of(new SNIMatcher(StandardConstants.SNI_HOST_NAME) {
                    @Override
                    public boolean matches(SNIServerName name) {
                        sniNames.add(((SNIHostName) name).getAsciiName());
                        return true;
                    }
                }));
                params.setSSLParameters(parameters);
            }
        });
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-https");
            t.setDaemon(true);
            return t;
        }));
        return server;
    }
}
