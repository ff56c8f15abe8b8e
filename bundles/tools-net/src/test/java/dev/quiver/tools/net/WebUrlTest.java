package dev.quiver.tools.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.ToolException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one normal form of a URL: what permission rules match, what is checked and what is requested. */
class WebUrlTest {

    private static String normal(String given) throws ToolException {
        return WebUrl.parse(given).toString();
    }

    @Test
    void everySpellingOfAHostAndPathHasOneNormalForm() throws Exception {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("HTTPS://EVIL.COM:443/", "https://evil.com/");
        cases.put("https://evil.com./", "https://evil.com/");
        cases.put("https://evil.com", "https://evil.com/");
        cases.put("https://evil.com?x", "https://evil.com/?x");
        cases.put("https://evil.com#top", "https://evil.com/");
        cases.put("  https://evil.com/a  ", "https://evil.com/a");
        cases.put("https://good.com@evil.com/", "https://evil.com/");
        cases.put("https://user:pw@EVIL.com:443/a/../b/./c", "https://evil.com/b/c");
        cases.put("https://%65vil.com/", "https://evil.com/");
        cases.put("https://evil%2Ecom/", "https://evil.com/");
        cases.put("https://evil\u3002com/", "https://evil.com/");
        cases.put("https://\uff45\uff56\uff49\uff4c.com/", "https://evil.com/");
        cases.put("https://b\u00fccher.de/", "https://xn--bcher-kva.de/");
        cases.put("https://XN--BCHER-KVA.DE/", "https://xn--bcher-kva.de/");
        cases.put("http://evil.com:80/", "http://evil.com/");
        cases.put("http://evil.com:0080/", "http://evil.com/");
        cases.put("https://evil.com:8443/", "https://evil.com:8443/");
        cases.put("https://evil.com/%7euser/%2e%2e/x", "https://evil.com/x");
        cases.put("https://evil.com/a/%2E%2E/%2e/b", "https://evil.com/b");
        cases.put("https://evil.com/a/b/..", "https://evil.com/a/");
        cases.put("https://evil.com/../../etc", "https://evil.com/etc");
        cases.put("https://evil.com/a%2fb", "https://evil.com/a%2Fb");
        cases.put("https://evil.com/a b?q=c d", "https://evil.com/a%20b?q=c%20d");
        cases.put("https://evil.com/caf\u00e9", "https://evil.com/caf%C3%A9");
        cases.put("https://evil.com/a\\b", "https://evil.com/a%5Cb");
        cases.put("https://evil.com/100%", "https://evil.com/100%25");
        cases.put("https://evil.com/?a=%41&b=%2f", "https://evil.com/?a=A&b=%2F");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            assertEquals(c.getValue(), normal(c.getKey()), c.getKey());
        }
    }

    @Test
    void anIpv4HostInAnySpellingIsItsDottedQuadAsBrowsersAndInetAtonReadIt() throws Exception {
        for (String host : new String[] {"2130706433", "0177.0.0.1", "0x7f.0.0.1", "0X7F.0.0.1", "127.1", "0x7f.1",
                "127.0.1", "017700000001", "0x7f000001", "127.0.0.1.", "%31%32%37.0.0.1"}) {
            assertEquals("http://127.0.0.1/", normal("http://" + host + "/"), host);
        }
        assertEquals("http://0.0.0.0/", normal("http://0/"));
        assertEquals("http://169.254.169.254/", normal("http://0xa9fea9fe/"));
        assertEquals("http://169.254.169.254/", normal("http://025177524776/"));
        assertEquals("http://10.0.0.1/", normal("http://10.1/"));
        for (String bad : new String[] {"1.2.3.4.5", "256.0.0.1", "08.0.0.1", "0x1g.0.0.1", "a.1",
                "4294967296"}) {
            ToolException e = assertThrows(ToolException.class, () -> normal("http://" + bad + "/"), bad);
            assertTrue(e.getMessage().startsWith("Not a valid URL: http://" + bad + "/"), e.getMessage());
        }
    }

    @Test
    void anIpv6HostIsCompressedAndMappedAddressesKeepTheirForm() throws Exception {
        assertEquals("http://[::1]/", normal("http://[0:0:0:0:0:0:0:1]:80/"));
        assertEquals("http://[::ffff:7f00:1]/", normal("http://[::FFFF:127.0.0.1]/"));
        assertEquals("http://[::ffff:7f00:1]/", normal("http://[::ffff:7f00:1]/"));
        assertEquals("http://[fe80::1]/", normal("http://[FE80:0000::0001]/"));
        assertEquals("http://[2001:db8::1:0:0:1]/", normal("http://[2001:db8:0:0:1:0:0:1]/"));
        assertEquals("http://[::]/", normal("http://[::]/"));
        for (String bad : new String[] {"[::1%25eth0]", "[::1", "[1:2:3:4:5:6:7:8:9]", "[1::2::3]", "[:1]", "[::1]x",
                "[12345::]", "[::1.2.3.256]"}) {
            assertThrows(ToolException.class, () -> normal("http://" + bad + "/"), bad);
        }
    }

    @Test
    void whatCannotBeReadOneWayIsRefused() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("file:///etc/passwd", "Only http and https URLs can be fetched, not file:");
        cases.put("javascript:alert(1)", "Only http and https URLs can be fetched, not javascript:");
        cases.put("example.com/x", "without a scheme");
        cases.put("https:evil.com", "Not a valid URL");
        cases.put("https:/evil.com", "Not a valid URL");
        cases.put("https://evil.com\\@good.com/", "backslash");
        cases.put("https://ev il.com/", "Not a valid URL");
        cases.put("https://evil..com/", "not a valid");
        cases.put("https://evil.com:99999/", "port");
        cases.put("https://evil.com:x/", "port");
        cases.put("https:///path", "has no host");
        cases.put("https://evil.com/\u0000", "control character");
        cases.put("https://ev\nil.com/", "control character");
        cases.put("https://" + "a".repeat(64) + ".com/", "not a valid host name");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            ToolException e = assertThrows(ToolException.class, () -> normal(c.getKey()), c.getKey());
            assertTrue(e.getMessage().contains(c.getValue()), c.getKey() + ": " + e.getMessage());
        }
    }

    @Test
    void userInfoIsDroppedFromTheFormAndRemembered() throws Exception {
        assertTrue(WebUrl.parse("https://good.com@evil.com/").hadUserInfo());
        assertTrue(WebUrl.parse("https://a:b@c@evil.com/").hadUserInfo());
        assertEquals("evil.com", WebUrl.parse("https://a:b@c@evil.com/").host());
        assertFalse(WebUrl.parse("https://evil.com/@x").hadUserInfo());
    }

    @Test
    void redirectTargetsResolveAgainstTheUrlAndComeOutNormal() throws Exception {
        WebUrl base = WebUrl.parse("https://a.example/dir/page?x=1");
        assertEquals("https://a.example/dir/other", base.resolve("other").toString());
        assertEquals("https://a.example/top", base.resolve("../top").toString());
        assertEquals("https://a.example/dir/page?y=2", base.resolve("?y=2").toString());
        assertEquals("https://b.example/x", base.resolve("//B.EXAMPLE./x").toString());
        assertEquals("http://127.0.0.1/", base.resolve("http://0x7f.1/").toString());
        assertEquals("https://a.example/dir/a%20b", base.resolve("a b").toString());
        assertEquals("https://a.example/dir/page?x=1", base.resolve("#frag").toString());
        assertThrows(ToolException.class, () -> base.resolve("ftp://a.example/x"));
        assertThrows(ToolException.class, () -> base.resolve("\\\\evil.com/x"));
    }

    @Test
    void theHostPartsThatTheChecksUse() throws Exception {
        WebUrl v6 = WebUrl.parse("http://[::1]:8080/");
        assertEquals("::1", v6.bareHost());
        assertTrue(v6.isAddress());
        assertEquals(8080, v6.port());
        assertTrue(WebUrl.parse("http://2130706433/").isAddress());
        assertFalse(WebUrl.parse("https://example.com/").isAddress());
        assertFalse(WebUrl.parse("https://host1/").isAddress());
        assertFalse(WebUrl.parse("https://a.b.c.d9/").isAddress());
        assertEquals(443, WebUrl.parse("https://example.com/").port());
        assertEquals(80, WebUrl.parse("http://example.com/").port());
    }
}
