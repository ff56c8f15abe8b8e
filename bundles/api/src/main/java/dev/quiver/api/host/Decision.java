package dev.quiver.api.host;

import java.util.Locale;

/** What the permission chain decided for a call. Stricter decisions win: deny over ask over allow. */
public enum Decision {
    /** The call runs without asking. */
    ALLOW,
    /** The call needs a person's approval; without one it is refused. */
    ASK,
    /** The call is refused. */
    DENY;

    /** The lower-case name used in configuration and JSON output. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The stricter of two decisions. */
    public Decision strictest(Decision other) {
        return other.ordinal() > ordinal() ? other : this;
    }
}
