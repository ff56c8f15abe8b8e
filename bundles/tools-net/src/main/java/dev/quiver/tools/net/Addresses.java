package dev.quiver.tools.net;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * Which addresses the net tools refuse unless the configuration allows private hosts: those that
 * reach this machine or its networks rather than the public internet (SSRF).
 */
final class Addresses {

    private Addresses() {
    }

    /** Why the address is not public, or {@code null} when it is. */
    static String nonPublic(InetAddress address) {
        if (address.isLoopbackAddress()) {
            return "a loopback address";
        }
        if (address.isAnyLocalAddress()) {
            return "the unspecified address";
        }
        if (address.isLinkLocalAddress()) {
            return "a link-local address";
        }
        if (address.isSiteLocalAddress()) {
            return "a private-network address";
        }
        if (address.isMulticastAddress()) {
            return "a multicast address";
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return nonPublicV4(b);
        }
        if (address instanceof Inet6Address) {
            int first = b[0] & 0xff;
            if ((first & 0xfe) == 0xfc) {
                return "a private-network address";
            }
            if ((first == 0xfe) && ((b[1] & 0xc0) == 0xc0)) {
                return "a private-network address";
            }
            // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses
            // carry an IPv4 address, which is judged; so does 6to4 (2002:AABB:CCDD::), in its bytes 2 to 5
            boolean compatible = true;
            for (int i = 0; i < 12; i++) {
                compatible &= b[i] == 0;
            }
            boolean mapped = (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
            for (int i = 0; mapped && i < 10; i++) {
                mapped = b[i] == 0;
            }
            boolean nat64 = b[0] == 0 && b[1] == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
            for (int i = 4; nat64 && i < 12; i++) {
                nat64 = b[i] == 0;
            }
            if (compatible || mapped || nat64) {
                return nonPublicV4(new byte[] {b[12], b[13], b[14], b[15]});
            }
            if (first == 0x20 && b[1] == 0x02) {
                String embedded = nonPublicV4(new byte[] {b[2], b[3], b[4], b[5]});
                return embedded == null ? null : "a 6to4 address embedding " + embedded;
            }
        }
        return null;
    }

    /** An IPv4 address's reason, judged on its bytes alone (Java turns mapped IPv6 into IPv4 only sometimes). */
    private static String nonPublicV4(byte[] b) {
        int a0 = b[0] & 0xff;
        int a1 = b[1] & 0xff;
        if (a0 == 127) {
            return "a loopback address";
        }
        if (a0 == 0) {
            return (b[1] | b[2] | b[3]) == 0 ? "the unspecified address" : "an address in 0.0.0.0/8";
        }
        if (a0 == 10 || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168)) {
            return "a private-network address";
        }
        if (a0 == 169 && a1 == 254) {
            return "a link-local address";
        }
        if (a0 == 100 && (a1 & 0xc0) == 64) {
            return "a shared (carrier-grade NAT) address";
        }
        if (a0 == 192 && a1 == 0 && (b[2] & 0xff) == 0) {
            return "a reserved address";
        }
        if (a0 == 198 && (a1 == 18 || a1 == 19)) {
            return "a benchmarking address";
        }
        if (a0 >= 224 && a0 < 240) {
            return "a multicast address";
        }
        if (a0 >= 240) {
            return "a reserved address";
        }
        return null;
    }
}
