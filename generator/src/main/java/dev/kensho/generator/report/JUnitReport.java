package dev.kensho.generator.report;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.verify.SqlVerification;
import dev.kensho.generator.verify.VerificationRun;
import dev.kensho.sqlchecks.Outcome;
import dev.kensho.sqlchecks.PageResult;

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
        try (OutputStream out = Files.newOutputStream(file)) {
            XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
            xml.writeStartDocument("UTF-8", "1.0");
            xml.writeCharacters("\n");
            xml.writeStartElement("testsuites");
            xml.writeAttribute("name", "kensho");
            for (PageResult page : run.pages().values()) {
                writePage(xml, page);
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

    private static void writePage(XMLStreamWriter xml, PageResult page) throws XMLStreamException {
        List<Outcome> outcomes = page.outcomes();
        xml.writeCharacters("\n  ");
        xml.writeStartElement("testsuite");
        xml.writeAttribute("name", page.page());
        xml.writeAttribute("tests", Integer.toString(outcomes.size()));
        xml.writeAttribute("failures", Long.toString(outcomes.stream().filter(o -> o.status() == Outcome.Status.FAILED).count()));
        xml.writeAttribute("skipped", Long.toString(outcomes.stream().filter(o -> o.status() == Outcome.Status.SKIPPED).count()));
        xml.writeAttribute("errors", "0");
        xml.writeAttribute("time", seconds(outcomes.stream().mapToLong(o -> o.duration().toNanos()).sum()));
        for (Outcome outcome : outcomes) {
            xml.writeCharacters("\n    ");
            xml.writeStartElement("testcase");
            xml.writeAttribute("classname", page.page());
            xml.writeAttribute("name", outcome.snippet().location().file() + ":" + outcome.snippet().location().line()
                    + (outcome.snippet().scenario() == null ? " sql" : " scenario"));
            xml.writeAttribute("time", seconds(outcome.duration().toNanos()));
            if (outcome.status() == Outcome.Status.FAILED) {
                Diagnostic diagnostic = SqlVerification.diagnostic(page, outcome);
                xml.writeStartElement("failure");
                xml.writeAttribute("message", diagnostic.location() + ": " + diagnostic.message()
                        + (diagnostic.code() == null ? "" : " [" + diagnostic.code() + "]"));
                xml.writeAttribute("type", diagnostic.code() == null ? "assertion" : diagnostic.code());
                xml.writeCharacters(diagnostic.format());
                xml.writeEndElement();
            } else if (outcome.status() == Outcome.Status.SKIPPED) {
                xml.writeEmptyElement("skipped");
                xml.writeAttribute("message", outcome.failure().message());
            }
            xml.writeEndElement();
        }
        xml.writeCharacters("\n  ");
        xml.writeEndElement();
    }

    private static void writeProblems(XMLStreamWriter xml, List<Diagnostic> problems) throws XMLStreamException {
        xml.writeCharacters("\n  ");
        xml.writeStartElement("testsuite");
        xml.writeAttribute("name", "sources");
        xml.writeAttribute("tests", Integer.toString(problems.size()));
        xml.writeAttribute("failures", Integer.toString(problems.size()));
        xml.writeAttribute("skipped", "0");
        xml.writeAttribute("errors", "0");
        for (Diagnostic problem : problems) {
            xml.writeCharacters("\n    ");
            xml.writeStartElement("testcase");
            xml.writeAttribute("classname", problem.file());
            xml.writeAttribute("name", problem.file() + ":" + problem.line() + " source");
            xml.writeStartElement("failure");
            xml.writeAttribute("message", problem.location() + ": " + problem.message());
            xml.writeAttribute("type", "source");
            xml.writeCharacters(problem.format());
            xml.writeEndElement();
            xml.writeEndElement();
        }
        xml.writeCharacters("\n  ");
        xml.writeEndElement();
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }
}
