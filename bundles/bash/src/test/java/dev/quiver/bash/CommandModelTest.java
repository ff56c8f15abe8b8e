package dev.quiver.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandModelTest {

    @TempDir
    Path temp;

    private static CommandModel model(String command) {
        return CommandModel.of(ShellParser.parse(command).commands().get(0), null);
    }

    private static List<String> values(List<Word> words) {
        return words.stream().map(Word::value).toList();
    }

    private ShellWorkspace workspace(Path gitDir) {
        return CommandGuardTest.workspace(temp, gitDir, path -> false);
    }

    // ---- options as the program reads them

    @Test
    void longOptionsAreReadByAnyUniquePrefixAndNamedCanonically() {
        CommandModel rm = model("rm --rec --for src");
        assertTrue(rm.has("--recursive") && rm.has("--force"));
        assertEquals("rm --recursive --force src", rm.text());
        assertEquals(List.of("src"), values(rm.deletes()));
        assertTrue(model("rm -R src").has("--recursive"), "a short option has its long option's name");
        assertTrue(model("rm --interactive=never -v x").has("--interactive"));
    }

    @Test
    void anAmbiguousPrefixCountsAsEveryCandidate() {
        CommandModel push = model("git push --forc origin main");
        assertTrue(push.has("--force") && push.has("--force-with-lease") && push.has("--force-if-includes"));
        assertEquals("git push --forc origin main", push.text(), "kept as written: it means no single option");
    }

    @Test
    void clustersValuesAndDoubleDashAreReadAsGetoptDoes() {
        CommandModel cp = model("cp -vtbackup a b");
        assertEquals("backup", cp.value("--target-directory").value());
        assertEquals(List.of("a", "b"), values(cp.reads()));
        assertEquals(List.of("backup"), values(cp.writes()));
        CommandModel dashes = model("rm -f -- -rf src");
        assertFalse(dashes.has("--recursive"), "after -- a dash word is an operand");
        assertEquals(List.of("-rf", "src"), values(dashes.deletes()));
        assertTrue(model("rm src -rf").has("--recursive"), "GNU reads options after operands");
        assertEquals(List.of("x.tgz"), values(model("tar czf x.tgz src").writes()), "tar's old style");
    }

    @Test
    void aComputedWordWhereAnOptionOfADestroyingCommandCouldStandIsUnjudgeable() {
        for (String command : List.of("rm $x src", "rm $(echo -rf) src", "rm \"$@\"", "rm \"$FLAGS\" src", "rm -$x src",
                "find . $ACTION", "git reset $MODE", "git $OPTS push", "cp $FLAGS a b", "chmod $MODE src")) {
            assertFalse(model(command).unjudgeable().isEmpty(), command);
        }
        for (String command : List.of("rm \"$TMPFILE\"", "rm build/$x", "rm -f -- $x src", "cat $x", "git commit -m \"$M\"",
                "find . -name \"$PATTERN\"")) {
            assertEquals(List.of(), model(command).unjudgeable(), command);
        }
    }

    // ---- reads, writes, deletes

    @Test
    void metadataWritesAndDeletionsAreNoReads() {
        for (String command : List.of("stat .env", "touch .env", "chmod 600 .env", "ls -la .env", "rm .env", "du -h .env",
                "git log -- .env", "git log --stat -- .env", "test -f .env", "echo .env", "mkdir -p conf")) {
            assertEquals(List.of(), values(model(command).reads()), command);
        }
        assertEquals(List.of(".env"), values(model("git log -p -- .env").reads()), "a patch shows the content");
        assertEquals(List.of(".env"), values(model("file .env").reads()), "file reads the content to tell its type");
        assertEquals(List.of(".env.example"), values(model("cp .env.example .env").reads()));
        assertEquals(List.of(".env"), values(model("cp .env.example .env").writes()));
        assertEquals(List.of(".env"), values(model("dd if=.env of=x").reads()));
        assertEquals(List.of(".env"), values(model("git commit -F .env").reads()));
        assertEquals(List.of("--env-file=.env", "a", "b"), values(model("unknown-tool --env-file=.env a b").reads()),
                "an unknown program reads every word");
    }

    @Test
    void everyWritingRedirectionIsAWriteAndHarmlessDevicesAreNot() {
        // (<> is a write too, see Redirect#writes; the grammar reads it as <, and the parse as incomplete)
        for (String op : List.of(">", ">>", ">|", "&>", "&>>", ">&")) {
            assertEquals(List.of("f"), values(model("echo hi " + op + " f").writes()), op);
        }
        assertEquals(List.of(), model("echo hi >&2").writes());
        assertEquals(List.of(), model("echo hi > /dev/null 2>&1").writes());
        assertEquals(List.of("log"), values(model("tee -a log").writes()));
        assertEquals(List.of("f"), values(model("sed -i s/a/b/ f").writes()));
        assertEquals(List.of(), model("sed s/a/b/ f").writes());
    }

    @Test
    void mvMovesAndRsyncDeletesWhatTheSourceLacks() {
        CommandModel mv = model("mv a b dir/");
        assertEquals(List.of("a", "b"), values(mv.deletes()));
        assertEquals(List.of("dir/"), values(mv.writes()));
        assertEquals(List.of("dst/"), values(model("rsync -a --delete src/ dst/").deletes()));
        assertEquals(List.of(), model("rsync -a src/ host:dst/").writes(), "a remote destination is not on this machine");
        assertEquals(List.of("target"), values(model("find target -name '*.o' -delete").deletes()));
        assertEquals(List.of("."), values(model("find -delete").deletes()));
    }

    // ---- program, privilege, code

    @Test
    void theCommandWordIsResolvedForSystemFoldersOnly() {
        assertEquals("git push", model("/usr/bin/git push").text());
        assertEquals("rm -rf x", model("/bin/../bin/rm -rf x").text());
        CommandModel local = model("./tools/git push");
        assertEquals("git", local.program());
        assertEquals("./tools/git push", local.text(), "an allow rule must not take it for the system's git");
        assertTrue(local.spellings().contains("git push"), "a deny rule still catches it by its name");
        assertEquals("rm", model("$(echo rm) -rf src").program());
    }

    @Test
    void privilegedWrappersAreNamedAndSpelledInFront() {
        CommandModel sudo = model("sudo -u root git push origin main");
        assertEquals(Optional.of("sudo"), sudo.privilege());
        assertEquals("git push origin main", sudo.text());
        assertTrue(sudo.spellings().contains("sudo git push origin main"));
        assertEquals(Optional.of("su"), model("su -c 'ls'").privilege());
        assertEquals(Optional.of("sudo"), model("sudo -i").privilege());
        assertEquals(Optional.empty(), model("git push").privilege());
    }

    @Test
    void codeGivenInlineOrOnStandardInputIsFlagged() {
        for (String command : List.of("python3 -c 'print(1)'", "node -e 'x'", "perl -e 'x'", "ruby -e x", "python3 - <<EOF\nx\nEOF",
                "awk '{print}' f", "php -r 'x'")) {
            assertTrue(model(command).runsCode(), command);
        }
        for (String command : List.of("python3 script.py", "python3 -m pytest", "node index.js", "node --version",
                "awk -f prog.awk f", "ls")) {
            assertFalse(model(command).runsCode(), command);
        }
    }

    // ---- git

    @Test
    void gitsGlobalOptionsStopAtTheSubcommandAndAreLeftOutOfTheText() {
        CommandModel git = model("git -C sub -c color.ui=always --no-pager --git-dir=.git log -1");
        assertEquals("log", git.subcommand());
        assertEquals("git log -1", git.text());
        assertEquals(List.of(), git.unjudgeable());
        assertEquals("reset", model("git -p reset --har").subcommand());
        assertTrue(model("git -p reset --har").has("--hard"));
    }

    @Test
    void settingsThatCanRunCommandsOrDefineAliasesAreUnjudgeable() {
        for (String command : List.of("git -c alias.x=status x", "git -c core.pager=./evil log",
                "git -c core.sshCommand=x fetch", "git --config-env=core.pager=PAGER log", "git --exec-path=/tmp log",
                "git -c clean.requireForce=false clean -dx", "git -c $KV status", "git zz-no-such-command")) {
            assertFalse(model(command).unjudgeable().isEmpty(), command);
        }
        for (String command : List.of("git -c user.name=x commit -m y", "git -c core.pager=cat log",
                "git -c advice.detachedHead=false checkout x", "git lfs pull")) {
            assertEquals(List.of(), model(command).unjudgeable(), command);
        }
    }

    @Test
    void aliasesAreExpandedAsGitExpandsThem() {
        CommandModel nuke = model("git -c alias.nuke='reset --hard' nuke HEAD~1");
        assertEquals("reset", nuke.subcommand());
        assertTrue(nuke.has("--hard"));
        assertEquals("git reset --hard HEAD~1", nuke.text());
        CommandModel shell = model("git -c alias.x='!rm -rf src' x a");
        assertEquals(List.of("rm -rf src 'a'"), values(shell.shellCode()));
        CommandModel loop = model("git -c alias.a=b -c alias.b=a a");
        assertFalse(loop.unjudgeable().isEmpty(), "aliases that never end are unjudgeable");
        assertEquals(List.of("a", "b c", "d\\e", "f g"), Git.splitCommandLine("a 'b c' d\\\\e \"f g\""));
        assertNull(Git.splitCommandLine("'open"));
    }

    @Test
    void aliasesAreReadFromTheRepositorysConfigWithItsIncludes() throws Exception {
        Path git = Files.createDirectories(temp.resolve(".git"));
        Files.writeString(git.resolve("config"), """
                [core]
                \tbare = false
                [Alias]
                \tsave = "commit -am \\"wip\\"" ; a comment
                \tlong = log \\
                --oneline
                [include]
                \tpath = extra.cfg
                """);
        Files.writeString(git.resolve("extra.cfg"), "[alias]\n  nuke = reset --hard\n");
        ShellWorkspace where = workspace(git);
        CommandModel save = CommandModel.of(ShellParser.parse("git save").commands().get(0), where);
        assertEquals("git commit -am wip", save.text());
        assertEquals("git log --oneline", CommandModel.of(ShellParser.parse("git long").commands().get(0), where).text());
        CommandModel nuke = CommandModel.of(ShellParser.parse("git nuke").commands().get(0), where);
        assertTrue(nuke.has("--hard"));
        assertEquals(List.of(), nuke.unjudgeable(), "an alias from a config file is known");
        assertFalse(CommandModel.of(ShellParser.parse("git other").commands().get(0), where).unjudgeable().isEmpty());
    }

    @Test
    void aHostileConfigIsReadWithinBounds() throws Exception {
        Path git = Files.createDirectories(temp.resolve(".git"));
        Files.writeString(git.resolve("config"), "[include]\n\tpath = config\n[alias]\n\tx = status\n");
        Files.createSymbolicLink(git.resolve("pipe.cfg"), Path.of("/dev/zero"));
        Files.writeString(git.resolve("config.worktree"), "[include]\n\tpath = pipe.cfg\n");
        long start = System.nanoTime();
        CommandModel x = CommandModel.of(ShellParser.parse("git x").commands().get(0), workspace(git));
        assertEquals("git status", x.text(), "an include of itself ends, a device is not read");
        assertTrue(System.nanoTime() - start < 2_000_000_000L);
    }

    // ---- folders

    @Test
    void cdIsFollowedIntoEveryFolderItMayLeadTo() throws Exception {
        Files.createDirectories(temp.resolve("sub"));
        ShellWorkspace where = workspace(null);
        List<CommandModel> line = CommandModel.line(ShellParser.parse("cd sub && echo x > f; cd \"$D\"; echo y > g"), where);
        assertEquals(List.of(temp), line.get(0).folders(where));
        assertEquals(List.of(temp, temp.resolve("sub")), line.get(1).folders(where), "the cd may not have run");
        assertNull(line.get(3).folders(where), "after a cd to a computed folder nothing relative is known");
        assertEquals(List.of("g"), values(line.get(3).outside(where)));
        assertEquals(List.of(), line.get(1).outside(where));
        assertEquals(List.of("~/.bashrc"), values(CommandModel.line(ShellParser.parse("echo x >> ~/.bashrc"), where)
                .get(0).outside(where)));
    }

    @Test
    void cdTakesDotDotOffTheLogicalPathUnlessPhysical() throws Exception {
        Files.createDirectories(temp.resolve("src"));
        Files.createDirectories(temp.resolve("build/sub"));
        Files.createSymbolicLink(temp.resolve("build/sub/lnk"), Path.of("../../src"));
        ShellWorkspace where = workspace(null);
        Path real = temp.toRealPath();
        List<CommandModel> line = CommandModel.line(ShellParser.parse("cd build/sub/lnk/.. && rm -rf lnk/"), where);
        assertTrue(line.get(1).folders(where).stream().anyMatch(f -> f.toString().endsWith("build/sub")),
                "bash's cd takes .. off the text: " + line.get(1).folders(where));
        List<CommandModel> chained = CommandModel.line(ShellParser.parse("cd build/sub/lnk && cd .. && rm -rf lnk/"), where);
        assertTrue(chained.get(2).folders(where).stream().anyMatch(f -> f.toString().endsWith("build/sub")),
                "the logical folder is kept between cds: " + chained.get(2).folders(where));
        List<CommandModel> physical = CommandModel.line(ShellParser.parse("cd -P build/sub/lnk/.. && rm -rf lnk/"), where);
        assertTrue(physical.get(1).folders(where).stream().noneMatch(f -> f.toString().endsWith("build/sub")),
                "cd -P follows the link first: " + physical.get(1).folders(where) + " in " + real);
        List<CommandModel> set = CommandModel.line(ShellParser.parse("set -P; cd build/sub/lnk/.. && rm -rf lnk/"), where);
        assertTrue(set.get(2).folders(where).stream().noneMatch(f -> f.toString().endsWith("build/sub")));
        String refused = CommandGuard.refusal(ShellParser.parse("cd build/sub/lnk/.. && rm -rf lnk/"),
                CommandGuardTest.workspace(temp, null, p -> p.startsWith(temp.resolve("build")))).orElse(null);
        assertNotNull(refused, "rm -rf lnk/ in build/sub deletes src through the link");
    }
}
