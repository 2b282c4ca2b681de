package dev.kensho.generator.report;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.verify.SqlVerification;
import dev.kensho.generator.verify.VerificationRun;
import dev.kensho.generator.verify.VersionCoverage;
import dev.kensho.sqlchecks.postgres.PostgresReleases;
import java.util.Map;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;

import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * JUnit XML for CI systems: one test suite per page, one test case per snippet or scenario named
 * {@code file:line}, so a broken example shows up as a failed test with the server's error and the
 * offending source line. Problems that are not a snippet (front matter, directives, templates) are
 * test cases of a suite of their own.
 */
public final class JUnitReport {

    public static final String FILE_NAME = "TEST-kensho.xml";

    private JUnitReport() {
    }

    public static Path write(Path directory, VerificationRun run, List<Diagnostic> diagnostics) throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve(FILE_NAME);
        Set<String> snippetProblems = run.pages().values().stream().flatMap(p -> p.outcomes().stream()
                        .filter(o -> o.status() == Outcome.Status.FAILED)
                        .map(o -> SqlVerification.diagnostic(p, o).location()))
                .collect(Collectors.toSet());
        List<Diagnostic> sourceProblems = diagnostics.stream().filter(d -> !snippetProblems.contains(d.location())).toList();
        try (OutputStream out = dev.kensho.generator.output.LinkFreePaths.create(file)) {
            XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
            xml.writeStartDocument("UTF-8", "1.0");
            xml.writeCharacters("\n");
            xml.writeStartElement("testsuites");
            attribute(xml, "name", "kensho");
            for (Map.Entry<String, PageResult> page : run.pages().entrySet()) {
                writePage(xml, page.getValue(), run, page.getKey());
            }
            if (!sourceProblems.isEmpty()) {
                writeProblems(xml, sourceProblems);
            }
            xml.writeCharacters("\n");
            xml.writeEndElement();
            xml.writeEndDocument();
            xml.close();
        } catch (XMLStreamException e) {
            throw new IOException("cannot write " + file + ": " + e.getMessage(), e);
        }
        return file;
    }

    private static void writePage(XMLStreamWriter xml, PageResult page, VerificationRun run, String relativePath) throws XMLStreamException {
        VersionCoverage coverage = run.coverage();
        boolean several = coverage != null && coverage.checked().size() > 1;
        List<Outcome> outcomes = page.outcomes();
        xml.writeCharacters("\n  ");
        xml.writeStartElement("testsuite");
        attribute(xml, "name", page.page());
        attribute(xml, "tests", Integer.toString(outcomes.size()));
        attribute(xml, "failures", Long.toString(outcomes.stream().filter(o -> o.status() == Outcome.Status.FAILED).count()));
        attribute(xml, "skipped", Long.toString(outcomes.stream().filter(o -> o.status() == Outcome.Status.SKIPPED).count()));
        attribute(xml, "errors", "0");
        attribute(xml, "time", seconds(outcomes.stream().mapToLong(o -> o.duration().toNanos()).sum()));
        if (run.serverVersion() != null) {
            // Which PostgreSQL the page was checked on ("18.6", or each version's when several were).
            xml.writeCharacters("\n    ");
            xml.writeStartElement("properties");
            xml.writeEmptyElement("property");
            attribute(xml, "name", "postgres");
            attribute(xml, "value", run.serverVersion());
            xml.writeEndElement();
        }
        for (int index = 0; index < outcomes.size(); index++) {
            Outcome outcome = outcomes.get(index);
            xml.writeCharacters("\n    ");
            xml.writeStartElement("testcase");
            attribute(xml, "classname", page.page());
            attribute(xml, "name", outcome.snippet().location().file() + ":" + outcome.snippet().location().line()
                    + (outcome.snippet().scenario() == null ? " sql" : " scenario")
                    + (several ? " on PostgreSQL " + PostgresReleases.describe(coverage.of(relativePath, index)) : ""));
            // file and line as Ant's and Surefire's reports write them, so CI systems can point at the fence.
            attribute(xml, "file", outcome.snippet().location().file());
            attribute(xml, "line", Integer.toString(outcome.snippet().location().line()));
            attribute(xml, "time", seconds(outcome.duration().toNanos()));
            if (outcome.status() == Outcome.Status.FAILED) {
                Diagnostic diagnostic = SqlVerification.diagnostic(page, outcome);
                xml.writeStartElement("failure");
                attribute(xml, "message", diagnostic.location() + ": " + diagnostic.message()
                        + (diagnostic.code() == null ? "" : " [" + diagnostic.code() + "]"));
                attribute(xml, "type", diagnostic.code() == null ? "assertion" : diagnostic.code());
                xml.writeCharacters(ReportText.forXml(ReportText.cut(diagnostic.format())));
                xml.writeEndElement();
            } else if (outcome.status() == Outcome.Status.SKIPPED) {
                xml.writeEmptyElement("skipped");
                attribute(xml, "message", outcome.failure().message());
            }
            xml.writeEndElement();
        }
        xml.writeCharacters("\n  ");
        xml.writeEndElement();
    }

    private static void writeProblems(XMLStreamWriter xml, List<Diagnostic> problems) throws XMLStreamException {
        xml.writeCharacters("\n  ");
        xml.writeStartElement("testsuite");
        attribute(xml, "name", "sources");
        attribute(xml, "tests", Integer.toString(problems.size()));
        attribute(xml, "failures", Integer.toString(problems.size()));
        attribute(xml, "skipped", "0");
        attribute(xml, "errors", "0");
        for (Diagnostic problem : problems) {
            xml.writeCharacters("\n    ");
            xml.writeStartElement("testcase");
            attribute(xml, "classname", problem.file());
            attribute(xml, "name", problem.file() + ":" + problem.line() + " source");
            attribute(xml, "file", problem.file());
            attribute(xml, "line", Integer.toString(problem.line()));
            xml.writeStartElement("failure");
            attribute(xml, "message", problem.location() + ": " + problem.message());
            attribute(xml, "type", "source");
            xml.writeCharacters(ReportText.forXml(ReportText.cut(problem.format())));
            xml.writeEndElement();
            xml.writeEndElement();
        }
        xml.writeCharacters("\n  ");
        xml.writeEndElement();
    }

    /** XML 1.0 cannot carry most control characters, even escaped, nor U+FFFF; a hostile message must not break the file. */
    private static void attribute(XMLStreamWriter xml, String name, String value) throws XMLStreamException {
        xml.writeAttribute(name, ReportText.forXml(ReportText.cut(Diagnostic.printable(value))));
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }
}
