package dev.quiver.tools.net;

import java.util.Locale;

/**
 * IP addresses written in URLs. IPv4 is read as the WHATWG URL standard (and so every browser, and
 * the C library's {@code inet_aton}) reads it: one to four parts, each decimal, octal with a leading
 * {@code 0} or hex with {@code 0x}, the last part filling the remaining bytes — so {@code 2130706433},
 * {@code 0177.0.0.1}, {@code 0x7f.1} and {@code 127.1} are all 127.0.0.1. (Java's own parser reads
 * {@code 0177.0.0.1} as 177.0.0.1.) IPv6 is read as RFC 4291 writes it, an IPv4 tail included; zone
 * ids are refused.
 */
final class IpLiterals {

    private IpLiterals() {
    }

    /** The four bytes of an IPv4 host in any of its spellings, or {@code null} when it is none. */
    static byte[] v4(String host) {
        String[] parts = host.split("\\.", -1);
        if (parts.length > 4 || parts.length == 0) {
            return null;
        }
        long[] numbers = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            numbers[i] = number(parts[i]);
            if (numbers[i] < 0) {
                return null;
            }
        }
        for (int i = 0; i < numbers.length - 1; i++) {
            if (numbers[i] > 255) {
                return null;
            }
        }
        long last = numbers[numbers.length - 1];
        if (last >= 1L << (8 * (5 - numbers.length))) {
            return null;
        }
        long value = last;
        for (int i = 0; i < numbers.length - 1; i++) {
            value += numbers[i] << (8 * (3 - i));
        }
        return new byte[] {(byte) (value >> 24), (byte) (value >> 16), (byte) (value >> 8), (byte) value};
    }

    /** One part's value, or -1 when it is not a number (or is past 2^32, which no part may be). */
    private static long number(String part) {
        if (part.isEmpty()) {
            return -1;
        }
        int radix = 10;
        String digits = part;
        if (part.startsWith("0x") || part.startsWith("0X")) {
            radix = 16;
            digits = part.substring(2);
            if (digits.isEmpty()) {
                return 0;
            }
        } else if (part.length() > 1 && part.startsWith("0")) {
            radix = 8;
            digits = part.substring(1);
        }
        if (digits.length() > 12) {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++) {
            if (Character.digit(digits.charAt(i), radix) < 0 || digits.charAt(i) > 'f') {
                return -1;
            }
        }
        long value = Long.parseLong(digits, radix);
        return value > 0xffffffffL ? -1 : value;
    }

    static String v4Text(byte[] b) {
        return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
    }

    /** The sixteen bytes of an IPv6 address (without brackets), or {@code null} when it is none. */
    static byte[] v6(String text) {
        if (text.isEmpty() || text.indexOf('%') >= 0) {
            return null;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        int[] groups = new int[8];
        int count = 0;
        int compress = -1;
        String rest = lower;
        if (rest.startsWith("::")) {
            compress = 0;
            rest = rest.substring(2);
        } else if (rest.startsWith(":")) {
            return null;
        }
        while (!rest.isEmpty()) {
            if (count == 8) {
                return null;
            }
            int colon = rest.indexOf(':');
            String group = colon < 0 ? rest : rest.substring(0, colon);
            if (group.contains(".")) {
                // an IPv4 tail, strictly dotted decimal, fills the last two groups
                if (colon >= 0 || count > 6 || !group.matches("(\\d{1,3}\\.){3}\\d{1,3}")) {
                    return null;
                }
                int[] octets = new int[4];
                String[] parts = group.split("\\.");
                for (int i = 0; i < 4; i++) {
                    octets[i] = Integer.parseInt(parts[i]);
                    if (octets[i] > 255 || (parts[i].length() > 1 && parts[i].startsWith("0"))) {
                        return null;
                    }
                }
                groups[count++] = octets[0] << 8 | octets[1];
                groups[count++] = octets[2] << 8 | octets[3];
                rest = "";
                break;
            }
            if (!group.matches("[0-9a-f]{1,4}")) {
                return null;
            }
            groups[count++] = Integer.parseInt(group, 16);
            if (colon < 0) {
                rest = "";
            } else if (rest.startsWith("::", colon)) {
                if (compress >= 0) {
                    return null;
                }
                compress = count;
                rest = rest.substring(colon + 2);
            } else {
                rest = rest.substring(colon + 1);
                if (rest.isEmpty()) {
                    return null;
                }
            }
        }
        if (compress < 0 ? count != 8 : count > 7) {
            return null;
        }
        int[] full = new int[8];
        if (compress < 0) {
            full = groups;
        } else {
            int tail = count - compress;
            System.arraycopy(groups, 0, full, 0, compress);
            System.arraycopy(groups, compress, full, 8 - tail, tail);
        }
        byte[] bytes = new byte[16];
        for (int i = 0; i < 8; i++) {
            bytes[2 * i] = (byte) (full[i] >> 8);
            bytes[2 * i + 1] = (byte) full[i];
        }
        return bytes;
    }

    /** An IPv6 address as RFC 5952 writes it: lower-case hex, the longest run of zero groups as {@code ::}. */
    static String v6Text(byte[] b) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (b[2 * i] & 0xff) << 8 | (b[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; i++) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(i, j);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }
}
