package dev.kensho.sqlchecks.execution;

import java.net.InetAddress;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes the build machine out of the server's words before they reach a page or a report: Kensho's
 * own folders (the binaries, a cluster, its sockets), the machine's host name, and process ids,
 * which say nothing about the lesson and differ on every run. Only messages are rewritten; rows a
 * claim compares are left as the server returned them.
 */
final class MessageScrubber {

    /** Kensho's binaries ({@code kensho-postgres-…}) and clusters ({@code kensho-pg-…}), wherever they live. */
    private static final Pattern KENSHO_PATH = Pattern.compile("(?:/[^\\s\"'/]+)*/kensho-[^\\s\"'/]+(?:/[^\\s\"']*)?");
    private static final Pattern PROCESS = Pattern.compile("\\b([Pp]rocess|PID|pid) \\d+");
    private static final String HOST = hostName();

    private MessageScrubber() {
    }

    static String scrub(String text) {
        if (text == null) {
            return null;
        }
        String out = KENSHO_PATH.matcher(text).replaceAll("<kensho>");
        out = PROCESS.matcher(out).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + " <pid>"));
        if (HOST != null && HOST.length() > 2) {
            out = out.replace(HOST, "<host>");
        }
        return out;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return null;
        }
    }
}
