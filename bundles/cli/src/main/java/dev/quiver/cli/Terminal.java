package dev.quiver.cli;

import java.io.BufferedReader;
import java.io.PrintStream;

/**
 * The three streams a command talks through.
 *
 * @param in standard input
 * @param out standard output: answers and JSON only
 * @param err standard error: headers, warnings, errors
 */
record Terminal(BufferedReader in, PrintStream out, PrintStream err) {
}
