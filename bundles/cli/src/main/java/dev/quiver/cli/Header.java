package dev.quiver.cli;

import dev.quiver.api.host.Session;

/** The one start-up line: version, workspace, model and the tool sets that loaded. */
final class Header {

    private Header() {
    }

    static String line(String version, Session session) {
        String sets = session.toolSets().isEmpty() ? "none" : String.join(", ", session.toolSets());
        return "quiver " + version + " · workspace " + session.workspace() + " · model "
                + session.model().orElse("none") + " · tools " + sets;
    }
}
