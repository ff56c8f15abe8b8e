package dev.quiver.tools.net;

import dev.quiver.api.ToolException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultSchemePortResolver;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.BasicHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.config.RegistryBuilder;
import org.apache.hc.core5.util.Timeout;

/**
 * GET requests that reach only the addresses that were checked: each hop's host is resolved once,
 * every address it resolves to must pass {@link Addresses} (unless {@code allowPrivate}), and the
 * connection is made to exactly those addresses — Apache HttpClient asks our {@link DnsResolver},
 * which answers only for the checked host, with the checked addresses, so no second lookup can
 * rebind the name. TLS still verifies the certificate against the host name and sends it as SNI;
 * no proxy is used (a proxy would make the address checks meaningless).
 *
 * <p>Plain http reaches a host only when {@code allowHttp} names it or when it resolves to private
 * addresses only and {@code allowPrivate} is on; public hosts need https.
 *
 * <p>Redirects are followed by hand, at most {@value #MAX_REDIRECTS}, to a URL that passes the same
 * checks and that the caller's {@link Follows} accepts; every hop is kept for the caller to report.
 */
final class Fetcher {

    static final int MAX_REDIRECTS = 5;
    /** At most this long to connect, within the call's deadline. */
    private static final int CONNECT_MS = 10_000;
    /** How often the deadline and the call's cancellation are looked at while a request runs. */
    private static final int WATCH_MS = 50;

    /** Host name to addresses: the system's resolver, or a test's. */
    interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** Looks at running requests; its one thread ends when idle, so a stopped bundle leaves none behind. */
    private static final ScheduledThreadPoolExecutor WATCH;

    static {
        WATCH = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "quiver-net-deadline");
            thread.setDaemon(true);
            return thread;
        });
        WATCH.setKeepAliveTime(2, TimeUnit.SECONDS);
        WATCH.allowCoreThreadTimeOut(true);
        WATCH.setRemoveOnCancelPolicy(true);
    }

    /** HTTP/1.1 connections whose answer headers are bounded: a server cannot fill the heap with them. */
    private static final ManagedHttpClientConnectionFactory CONNECTIONS = ManagedHttpClientConnectionFactory.builder()
            .http1Config(Http1Config.custom().setMaxLineLength(16 * 1024).setMaxHeaderCount(200).build())
            .build();

    private final Resolver resolver;
    /** The TLS context; {@code null} for the system's default (its trust store, its properties). */
    private final SSLContext tls;

    Fetcher() {
        this(InetAddress::getAllByName, null);
    }

    Fetcher(Resolver resolver, SSLContext tls) {
        this.resolver = resolver;
        this.tls = tls;
    }

    /** A URL whose host was resolved once and whose every address passed the checks. */
    record Target(WebUrl url, InetAddress[] addresses) {
    }

    /** One request's answer; the body is read only for success and error statuses, up to a cap. */
    static final class Response {
        int status;
        String location;
        String contentType = "";
        /** The content type when it names binary content, in which case the body was not read. */
        String binaryType;
        byte[] body = new byte[0];
        boolean cut;
    }

    /** One hop of a fetch: the URL requested and its status. */
    record Hop(WebUrl url, int status) {
    }

    /** What a fetch ended with: the last hop's URL and answer, and every hop before it. */
    record Fetched(WebUrl url, Response response, List<Hop> redirects) {
    }

    /** How a fetch is made: the call's deadline, cancellation and headers. */
    record Request(long deadlineNanos, int timeoutMs, BooleanSupplier cancelled, String accept, String userAgent,
            int bodyCap, int errorBodyCap, Follows follows) {
    }

    /** Whether a redirect is followed, beyond the checks every URL passes. */
    interface Follows {
        /** Follows only to the same host. */
        Follows SAME_HOST = (from, to) -> from.host().equals(to.host()) ? null
                : "it leads to another host, which needs a call of its own";

        /** Why the redirect from {@code from} to {@code to} is not followed, or null to follow it. */
        String refusal(WebUrl from, WebUrl to);
    }

    /** A redirect that was not followed, and why: told to the model as the call's answer, not as a failure. */
    static final class NotFollowed extends ToolException {
        private static final long serialVersionUID = 1L;

        NotFollowed(WebUrl from, int status, WebUrl to, String why) {
            super(from + " redirects (HTTP " + status + ") to " + to + ", which was not followed: " + why
                    + ". To read it, call web_fetch with that URL.");
        }
    }

    /**
     * Resolves the URL's host once and checks every address and the scheme; what is returned is what
     * a request may connect to.
     */
    Target check(WebUrl url, NetConfig config) throws ToolException {
        if (url.hadUserInfo()) {
            throw new ToolException("URLs with credentials (user@host) are refused: " + url + " was given with them.");
        }
        InetAddress[] addresses = addresses(url);
        if (!config.allowPrivate()) {
            String refusal = refusal(url, addresses);
            if (refusal != null) {
                throw new ToolException("Refused: " + url.bareHost() + " " + refusal + ". The net tools reach public "
                        + "hosts only unless the user's config sets \"net\": {\"allowPrivate\": true}.");
            }
        }
        // only read where private hosts are allowed: otherwise refusal() has let public addresses alone through
        boolean onlyPrivate = config.allowPrivate()
                && Arrays.stream(addresses).allMatch(address -> Addresses.nonPublic(address) != null);
        if (url.scheme().equals("http") && !config.allowsHttp(url.host()) && !onlyPrivate) {
            throw new ToolException("Refused: plain http to " + url.host() + ", a public host; use https ("
                    + "https" + url.toString().substring(4) + "). Plain http reaches only hosts the user's config "
                    + "lists in \"net\": {\"allowHttp\": [...]}.");
        }
        return new Target(url, addresses);
    }

    /**
     * Why a URL's host is not public ({@code "resolves to 10.0.0.5, a private-network address"}, or for
     * an address {@code "is a loopback address"}); {@code null} when every address it resolves to is, or
     * when it does not resolve: nothing can be reached there, and a fetch checks it again.
     */
    String nonPublic(WebUrl url) {
        try {
            return refusal(url, addresses(url));
        } catch (ToolException unresolved) {
            return null;
        }
    }

    /** The first of the host's addresses that is not public, and why; {@code null} when all are. */
    private static String refusal(WebUrl url, InetAddress[] addresses) {
        for (InetAddress address : addresses) {
            String why = Addresses.nonPublic(address);
            if (why != null) {
                return (url.isAddress() ? "is " : "resolves to " + text(address) + ", ") + why;
            }
        }
        return null;
    }

    /** An address as URLs write it: IPv6 compressed ({@code fd00::5}, not {@code fd00:0:0:0:0:0:0:5}). */
    private static String text(InetAddress address) {
        return address instanceof java.net.Inet6Address ? IpLiterals.v6Text(address.getAddress()) : address.getHostAddress();
    }

    /** The host's addresses: an IP literal as it is, a name resolved once. */
    private InetAddress[] addresses(WebUrl url) throws ToolException {
        String host = url.bareHost();
        try {
            if (url.isAddress()) {
                byte[] bytes = host.contains(":") ? IpLiterals.v6(host) : IpLiterals.v4(host);
                return new InetAddress[] {InetAddress.getByAddress(bytes)};
            }
            InetAddress[] found = resolver.resolve(host);
            if (found == null || found.length == 0) {
                throw new UnknownHostException(host);
            }
            return found.clone();
        } catch (UnknownHostException e) {
            throw new ToolException("Could not resolve host " + host + ". Check the URL.");
        }
    }

    /** GETs the URL, following redirects that pass the same checks as the first URL. */
    Fetched fetch(WebUrl start, NetConfig config, Request request) throws ToolException {
        WebUrl url = start;
        Target target = check(url, config);
        List<Hop> hops = new ArrayList<>();
        while (true) {
            Response response = get(target, request);
            if (!isRedirect(response.status)) {
                return new Fetched(url, response, List.copyOf(hops));
            }
            if (response.location == null || response.location.isBlank()) {
                throw new ToolException("HTTP " + response.status + " from " + url + " without a Location header.");
            }
            WebUrl next;
            try {
                next = url.resolve(response.location);
            } catch (ToolException e) {
                throw new ToolException(url + " redirected to " + response.location.strip() + ", which was not "
                        + "followed: " + e.getMessage());
            }
            if (hops.size() == MAX_REDIRECTS) {
                throw new ToolException("Too many redirects: stopped after " + MAX_REDIRECTS + " at " + url
                        + ", which redirects to " + next + ".");
            }
            String refusal = request.follows().refusal(url, next);
            if (refusal != null) {
                throw new NotFollowed(url, response.status, next, refusal);
            }
            hops.add(new Hop(url, response.status));
            try {
                target = check(next, config);
            } catch (ToolException e) {
                throw new ToolException(url + " redirected (HTTP " + response.status + ") to " + next
                        + ", which was not followed. " + e.getMessage());
            }
            url = next;
        }
    }

    static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    /** One GET to the target's checked addresses, within the request's deadline. */
    Response get(Target target, Request request) throws ToolException {
        WebUrl url = target.url();
        long remaining = TimeUnit.NANOSECONDS.toMillis(request.deadlineNanos() - System.nanoTime());
        if (remaining <= 0) {
            throw timedOut(url, request.timeoutMs());
        }
        HttpGet get = new HttpGet(url.uri());
        get.setHeader("User-Agent", request.userAgent());
        get.setHeader("Accept", request.accept());
        get.setHeader("Accept-Encoding", "identity");
        AtomicReference<String> stopped = new AtomicReference<>();
        ScheduledFuture<?> watch = WATCH.scheduleWithFixedDelay(() -> {
            if (System.nanoTime() - request.deadlineNanos() > 0) {
                stopped.compareAndSet(null, "timeout");
                get.cancel();
            } else if (request.cancelled().getAsBoolean()) {
                stopped.compareAndSet(null, "cancel");
                get.cancel();
            }
        }, WATCH_MS, WATCH_MS, TimeUnit.MILLISECONDS);
        CloseableHttpClient client = client(target, remaining);
        ClassicHttpResponse answer = null;
        try {
            answer = client.executeOpen(null, get, null);
            Response response = new Response();
            response.status = answer.getCode();
            response.location = value(answer.getFirstHeader("Location"));
            String type = value(answer.getFirstHeader("Content-Type"));
            response.contentType = type == null ? "" : type.strip();
            HttpEntity entity = answer.getEntity();
            if (isRedirect(response.status) || entity == null) {
                get.cancel(); // the body is not wanted: drop the connection rather than drain it
                return response;
            }
            if (response.status < 400 && isBinary(response.contentType)) {
                response.binaryType = mediaType(response.contentType);
                get.cancel();
                return response;
            }
            read(entity, response, response.status >= 400 ? request.errorBodyCap() : request.bodyCap());
            if (response.cut) {
                get.cancel();
            }
            return response;
        } catch (IOException | RuntimeException e) {
            // the socket timeout is the time left, so a read that times out has met the deadline
            boolean readTimeout = e instanceof java.net.SocketTimeoutException
                    && !(e instanceof org.apache.hc.client5.http.ConnectTimeoutException);
            if ("timeout".equals(stopped.get()) || readTimeout || System.nanoTime() - request.deadlineNanos() > 0) {
                throw timedOut(url, request.timeoutMs());
            }
            if ("cancel".equals(stopped.get())) {
                throw new ToolException("Cancelled while fetching " + url + ".");
            }
            throw new ToolException("Could not fetch " + url + ": " + reason(e) + ".", e);
        } finally {
            watch.cancel(false);
            // what was read is the answer; a connection that fails to close after it changes nothing
            closeQuietly(answer);
            closeQuietly(client);
        }
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        if (closeable != null) {
            try {
                closeable.close();
            } catch (IOException | RuntimeException ignored) {
                // the connection is discarded either way
            }
        }
    }

    /** A client for one request, whose resolver answers only for the checked host, with the checked addresses. */
    private CloseableHttpClient client(Target target, long remainingMs) {
        String host = target.url().bareHost();
        InetAddress[] addresses = target.addresses();
        DnsResolver pinned = new DnsResolver() {
            @Override
            public InetAddress[] resolve(String name) throws UnknownHostException {
                String bare = name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
                if (!bare.equalsIgnoreCase(host)) {
                    throw new UnknownHostException(name + " is not the host that was checked (" + host + ")");
                }
                return addresses.clone();
            }

            @Override
            public String resolveCanonicalHostname(String name) {
                return name;
            }
        };
        TlsSocketStrategy strategy = tls == null ? DefaultClientTlsStrategy.createSystemDefault()
                : new DefaultClientTlsStrategy(tls);
        BasicHttpClientConnectionManager manager = BasicHttpClientConnectionManager.create(
                DefaultSchemePortResolver.INSTANCE, pinned,
                RegistryBuilder.<TlsSocketStrategy>create().register("https", strategy).build(),
                CONNECTIONS);
        manager.setConnectionConfig(ConnectionConfig.custom()
                .setConnectTimeout(Timeout.ofMilliseconds(Math.min(CONNECT_MS, remainingMs)))
                .setSocketTimeout(Timeout.ofMilliseconds(remainingMs))
                .build());
        return HttpClients.custom()
                .setConnectionManager(manager)
                .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofMilliseconds(remainingMs))
                        .build())
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .build();
    }

    private static void read(HttpEntity entity, Response response, int cap) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = entity.getContent()) {
            while (true) {
                int n = in.read(buffer);
                if (n < 0) {
                    break;
                }
                int take = Math.min(n, cap - bytes.size());
                bytes.write(buffer, 0, take);
                if (take < n) {
                    response.cut = true;
                    break;
                }
            }
        } catch (IOException e) {
            if (!response.cut) {
                throw e;
            }
        }
        response.body = bytes.toByteArray();
    }

    private static String value(Header header) {
        return header == null ? null : header.getValue();
    }

    private static String reason(Exception e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getMessage() == null) {
            cause = cause.getCause();
        }
        if (e instanceof java.net.ConnectException || e instanceof org.apache.hc.client5.http.HttpHostConnectException) {
            return "connection refused or unreachable";
        }
        if (e instanceof javax.net.ssl.SSLException) {
            return "TLS failed: " + e.getMessage();
        }
        if (e instanceof org.apache.hc.client5.http.ConnectTimeoutException) {
            return "could not connect within " + CONNECT_MS / 1000 + " s";
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }

    static ToolException timedOut(WebUrl url, int timeoutMs) {
        return new ToolException("Timed out after " + timeoutMs + " ms fetching " + url + ". Retry with a larger "
                + "timeout (max " + WebFetchTool.MAX_TIMEOUT_MS + ") or try another source.");
    }

    // ---- content types ---------------------------------------------------------------------------

    static String mediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }

    /** Text types: {@code text/*}, JSON, XML, JavaScript, YAML and a few more. */
    private static boolean isText(String type) {
        return type.startsWith("text/") || type.endsWith("+json") || type.endsWith("+xml") || type.endsWith("+yaml")
                || Arrays.asList("application/json", "application/xml", "application/javascript",
                        "application/ecmascript", "application/x-javascript", "application/yaml", "application/x-yaml",
                        "application/toml", "application/x-sh", "application/sql", "application/graphql",
                        "application/x-ndjson", "application/ndjson", "application/csv",
                        "application/x-www-form-urlencoded").contains(type);
    }

    private static boolean isBinary(String contentType) {
        String type = mediaType(contentType);
        return !type.isEmpty() && !isText(type);
    }
}
