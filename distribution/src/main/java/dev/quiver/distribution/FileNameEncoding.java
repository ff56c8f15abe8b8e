package dev.quiver.distribution;

import java.util.Optional;

/**
 * Whether the JVM reads file names as UTF-8. Java takes their encoding ({@code sun.jnu.encoding}) from
 * the locale once, at its start, and on Linux no option changes it afterwards: {@code bin/quiver} picks
 * an installed UTF-8 locale when the user's is not one, and this names the case where none was found.
 */
final class FileNameEncoding {

    private FileNameEncoding() {
    }

    /**
     * The one-line warning for a JVM whose file names are not UTF-8, or empty when they are.
     *
     * @param encoding the JVM's {@code sun.jnu.encoding}
     * @param locale what {@code LC_ALL}, {@code LC_CTYPE} or {@code LANG} says, the first one set (may be null)
     */
    static Optional<String> warning(String encoding, String locale) {
        if (encoding == null || encoding.replace("-", "").equalsIgnoreCase("UTF8")) {
            return Optional.empty();
        }
        String named = locale == null || locale.isEmpty() ? "no locale set" : "the locale " + locale;
        return Optional.of("quiver: warning: Java reads file names as " + encoding + ", not UTF-8 (" + named + ", and "
                + "no UTF-8 locale is installed), so files whose names are not ASCII may be missed or fail to open. "
                + "Install one (C.UTF-8 or en_US.UTF-8; `locale -a` lists them) and set LC_ALL to it.");
    }

    /** The locale the C library takes, as the user's environment names it. */
    static String locale() {
        for (String name : new String[] {"LC_ALL", "LC_CTYPE", "LANG"}) {
            String value = System.getenv(name);
            if (value != null && !value.isEmpty()) {
                return value;
            }
        }
        return null;
    }
}
