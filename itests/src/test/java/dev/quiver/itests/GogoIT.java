package dev.quiver.itests;

import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/** The Felix shell's quiver:catalog and quiver:tools commands, run through Gogo's command processor. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class GogoIT {

    @Inject
    CommandProcessor processor;

    @Configuration
    public Option[] configuration() {
        return HostOptions.withGogo();
    }

    private String run(String line) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]), print, print)) {
            Object result = session.execute(line);
            return out.toString(StandardCharsets.UTF_8) + (result == null ? "" : String.valueOf(result));
        }
    }

    @Test
    public void quiverToolsListsTheLiveRegistry() throws Exception {
        String tools = run("quiver:tools");
        assertTrue(tools, tools.contains("read_file") && tools.contains("dev.quiver.tools.core"));
    }

    @Test
    public void quiverCatalogListsBundlesAndRefusesClearly() throws Exception {
        String bundles = run("quiver:catalog bundles");
        assertTrue(bundles, bundles.contains("dev.quiver.kernel") && bundles.contains("active"));
        String list = run("quiver:catalog list");
        assertTrue(list, list.contains("enforcement: off"));
        String install = run("quiver:catalog install no.such.bundle");
        assertTrue(install, install.contains("No catalogue offers 'no.such.bundle'"));
        String usage = run("quiver:catalog frobnicate");
        assertTrue(usage, usage.startsWith("usage: quiver:catalog"));
    }
}
