package dev.quiver.tools.net;

import java.net.InetAddress;
import java.util.List;

/**
 * Which addresses the net tools refuse unless the configuration allows private hosts: those that
 * reach this machine or its networks rather than the public internet (SSRF). One table per family,
 * taken from IANA's IPv4 and IPv6 special-purpose address registries (every entry that is not
 * globally reachable, and the whole of the IETF's IPv6 protocol block and of IPv6 outside
 * {@code 2000::/3}); the IPv6 forms that carry an IPv4 address are judged on that address against
 * the IPv4 table. Judged on the bytes alone, since Java turns mapped IPv6 into IPv4 only sometimes.
 */
final class Addresses {

    private static final String PRIVATE = "a private-network address";
    private static final String DOCUMENTATION = "a documentation address";

    /**
     * A special-purpose prefix. Its addresses are refused for {@code why}; or, when it carries an
     * IPv4 address from byte {@code embeddedAt}, judged on that address; or, when {@code why} is null
     * and nothing is embedded, public.
     */
    private record Prefix(byte[] bytes, int bits, String why, int embeddedAt) {

        boolean contains(byte[] address) {
            if (address.length != bytes.length) {
                return false;
            }
            for (int bit = 0; bit < bits; bit += 8) {
                int mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
                if (((address[bit / 8] ^ bytes[bit / 8]) & mask) != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    /** IPv4, the first prefix that holds an address deciding (so the narrower come first). */
    private static final List<Prefix> V4 = List.of(
            refused("0.0.0.0/32", "the unspecified address"),
            refused("0.0.0.0/8", "an address in 0.0.0.0/8"),
            refused("10.0.0.0/8", PRIVATE),
            refused("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
            refused("127.0.0.0/8", "a loopback address"),
            refused("169.254.0.0/16", "a link-local address"),
            refused("172.16.0.0/12", PRIVATE),
            refused("192.0.0.0/24", "an IETF protocol assignment address"),
            refused("192.0.2.0/24", DOCUMENTATION),
            refused("192.88.99.0/24", "a 6to4 relay anycast address"),
            refused("192.168.0.0/16", PRIVATE),
            refused("198.18.0.0/15", "a benchmarking address"),
            refused("198.51.100.0/24", DOCUMENTATION),
            refused("203.0.113.0/24", DOCUMENTATION),
            refused("224.0.0.0/4", "a multicast address"),
            refused("255.255.255.255/32", "the broadcast address"),
            refused("240.0.0.0/4", "a reserved address"));

    /** IPv6, in the same way; past the named prefixes only global unicast ({@code 2000::/3}) is public. */
    private static final List<Prefix> V6 = List.of(
            refused("::/128", "the unspecified address"),
            refused("::1/128", "a loopback address"),
            embedding("::ffff:0:0/96", 12, "an IPv4-mapped address"),
            embedding("::ffff:0:0:0/96", 12, "an IPv4-translated (SIIT) address"),
            embedding("::/96", 12, "an IPv4-compatible address"),
            embedding("64:ff9b::/96", 12, "a NAT64 address"),
            refused("64:ff9b:1::/48", "a local-use NAT64 address"),
            refused("100::/64", "a discard-only address"),
            // Teredo hides its client's IPv4 address (inverted) and reaches it through a relay: refused whole
            refused("2001::/32", "a Teredo address"),
            refused("2001:2::/48", "a benchmarking address"),
            refused("2001::/23", "an IETF protocol assignment address"),
            refused("2001:db8::/32", DOCUMENTATION),
            embedding("2002::/16", 2, "a 6to4 address"),
            refused("3fff::/20", DOCUMENTATION),
            refused("5f00::/16", "a segment routing (SRv6) address"),
            refused("fc00::/7", PRIVATE),
            refused("fe80::/10", "a link-local address"),
            refused("fec0::/10", PRIVATE),
            refused("ff00::/8", "a multicast address"),
            new Prefix(IpLiterals.v6("2000::"), 3, null, -1),
            refused("::/0", "a reserved address (outside global unicast, 2000::/3)"));

    private Addresses() {
    }

    /** Why the address is not public, or {@code null} when it is. */
    static String nonPublic(InetAddress address) {
        return nonPublic(address.getAddress());
    }

    private static String nonPublic(byte[] address) {
        for (Prefix prefix : address.length == 4 ? V4 : V6) {
            if (prefix.contains(address)) {
                if (prefix.embeddedAt() < 0) {
                    return prefix.why();
                }
                byte[] v4 = new byte[4];
                System.arraycopy(address, prefix.embeddedAt(), v4, 0, 4);
                String embedded = nonPublic(v4);
                return embedded == null ? null : prefix.why() + " embedding " + embedded;
            }
        }
        return null;
    }

    private static Prefix refused(String cidr, String why) {
        return prefix(cidr, why, -1);
    }

    private static Prefix embedding(String cidr, int at, String what) {
        return prefix(cidr, what, at);
    }

    private static Prefix prefix(String cidr, String why, int embeddedAt) {
        int slash = cidr.indexOf('/');
        String address = cidr.substring(0, slash);
        byte[] bytes = address.contains(":") ? IpLiterals.v6(address) : IpLiterals.v4(address);
        return new Prefix(bytes, Integer.parseInt(cidr.substring(slash + 1)), why, embeddedAt);
    }
}
