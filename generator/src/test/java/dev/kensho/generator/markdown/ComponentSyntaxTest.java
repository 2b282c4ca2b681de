package dev.kensho.generator.markdown;

import dev.kensho.generator.Diagnostic;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MDX as Starlight authors write it, read by the component parser: markers, values and error positions. */
class ComponentSyntaxTest {

    /** A theme with a few components and no required attributes, except Card's title. */
    private static final ComponentCatalog CATALOG = new ComponentCatalog() {
        @Override
        public Optional<List<String>> requiredAttributes(String component) {
            return switch (component) {
                case "Card" -> Optional.of(List.of("title"));
                case "Aside", "Steps", "Tabs", "TabItem", "Badge", "LinkCard", "Chart" -> Optional.of(List.of());
                default -> Optional.empty();
            };
        }

        @Override
        public List<String> names() {
            return List.of("Aside", "Badge", "Card", "Chart", "LinkCard", "Steps", "TabItem", "Tabs");
        }
    };

    private final List<Diagnostic> diagnostics = new ArrayList<>();

    private ComponentSyntax.Result extract(String body) {
        return ComponentSyntax.extract(body, "p.mdx", CATALOG, path -> {
            if (path.equals("./example.js")) {
                return "console.log('hi');\n";
            }
            throw new MdxModule.ValueProblem("import '" + path + "?raw': no such file in this test");
        }, diagnostics);
    }

    @Test
    void structuredValuesAreReadAsData() {
        ComponentSyntax.Result result = extract("""
                <Chart points={[1, 2.5, 3]} options={{ title: 'Sales', stacked: true, series: [{name: "a"},], }} />
                """);
        assertEquals(List.of(), diagnostics);
        Map<String, Object> attributes = result.tags().get(0).attributes();
        assertEquals(List.of(1, 2.5, 3), attributes.get("points"));
        assertEquals(Map.of("title", "Sales", "stacked", true, "series", List.of(Map.of("name", "a"))), attributes.get("options"));
    }

    @Test
    void exportedConstantsAnywhereOnThePageAreValuesAndTheirLinesAreBlank() {
        ComponentSyntax.Result result = extract("""
                import { Chart } from '../components/Chart.astro';

                <Chart points={points} title={title} />

                export const points = [
                  { x: 1, y: 2 },
                  { x: 2, y: 4 },
                ];
                export const title = `Two
                lines`;
                """);
        assertEquals(List.of(), diagnostics);
        assertEquals(List.of(Map.of("x", 1, "y", 2), Map.of("x", 2, "y", 4)), result.tags().get(0).attributes().get("points"));
        assertEquals("Two\nlines", result.tags().get(0).attributes().get("title"));
        String[] lines = result.body().split("\n", -1);
        assertEquals(11, lines.length, "line numbers are kept");
        for (int i : new int[] {0, 4, 5, 6, 7, 8, 9}) {
            assertEquals("", lines[i], "line " + (i + 1) + " is part of an ESM statement");
        }
    }

    @Test
    void anImportedNameOrAnExpressionIsAnErrorThatSaysWhatToWrite() {
        extract("""
                import data from './data.json';

                <Chart points={data} />
                <Chart points={items.map(i => i * 2)} />
                <Chart points={missing} />
                <Chart label={`Total: ${n}`} />
                """);
        assertEquals(List.of(
                "p.mdx:3:15: attribute points: data is imported from './data.json', and Kensho runs no JavaScript; "
                        + "write the value here, or as 'export const data = …' in this page",
                "p.mdx:4:15: attribute points: {items.map(i => i * 2)} needs JavaScript to run; write the value itself "
                        + "(text, a number, true/false, an object or array of those) or a name from 'export const'",
                "p.mdx:5:15: attribute points: missing is not defined on this page; add 'export const missing = …'",
                "p.mdx:6:14: attribute label: a template string with ${…} needs JavaScript to run; write the text itself"),
                diagnostics.stream().map(d -> d.file() + ":" + d.line() + ":" + d.column() + ": " + d.message()).toList());
    }

    @Test
    void aMultiLineImportIsBlankedAsAWhole() {
        ComponentSyntax.Result result = extract("""
                import {
                  Card,
                  CardGrid,
                } from '@astrojs/starlight/components';

                Text.
                """);
        assertEquals(List.of(), diagnostics);
        assertEquals("\n\n\n\n\nText.\n", result.body());
    }

    @Test
    void tagsInsideListItemsKeepTheirIndentation() {
        ComponentSyntax.Result result = extract("""
                1. First:

                   <Aside>
                   Inside.
                   </Aside>

                2. Second
                """);
        assertEquals(List.of(), diagnostics);
        assertEquals("   " + dev.kensho.generator.markdown.ComponentTag.marker(0), result.body().split("\n")[2]);
        assertEquals("   " + dev.kensho.generator.markdown.ComponentTag.marker(1), result.body().split("\n")[4]);
    }

    @Test
    void aMultiLineOpeningTagIsOneTagAndErrorsPointAtItsFirstLine() {
        ComponentSyntax.Result result = extract("""
                Intro.

                <LinkCard
                  title="Keys"
                  href="/keys/"
                  description={"Reserve first"}
                />
                <Card
                  icon="star"
                />
                """);
        assertEquals(Map.of("title", "Keys", "href", "/keys/", "description", "Reserve first"), result.tags().get(0).attributes());
        assertEquals(3, result.tags().get(0).line());
        assertEquals(List.of("p.mdx:8:1: <Card> needs the attribute title=\"…\""),
                diagnostics.stream().map(d -> d.file() + ":" + d.line() + ":" + d.column() + ": " + d.message()).toList());
    }

    @Test
    void tagsInInlineCodeAndFencesAndJsxCommentsAreNotComponents() {
        ComponentSyntax.Result result = extract("""
                Use `<Card />` or ``<Aside>``.

                {/* <Aside> in a comment
                   over two lines */}

                ```mdx
                <Aside>
                import x from 'y';
                ```
                """);
        assertEquals(List.of(), diagnostics);
        assertEquals(List.of(), result.tags());
        assertTrue(result.body().contains("import x from 'y';"), "ESM inside a fence is code");
        assertTrue(result.body().startsWith("Use `<Card />` or ``<Aside>``.\n\n\n\n"), result.body());
    }

    @Test
    void anUnknownComponentNamesTheTemplateToAdd() {
        extract("Text\n\n<Tweet id=\"1\" />\n");
        assertEquals("p.mdx:3:1: unknown component <Tweet>; the theme has Aside, Badge, Card, Chart, LinkCard, Steps, TabItem, Tabs "
                        + "(add theme/components/Tweet.ftlh to define it)",
                diagnostics.stream().map(d -> d.file() + ":" + d.line() + ":" + d.column() + ": " + d.message()).findFirst().orElseThrow());
    }

    @Test
    void valuesNestedBeyondTheLimitAreRefusedNotRecursedInto() {
        extract("<Chart data={" + "[".repeat(200) + "]".repeat(200) + "} />\n");
        assertEquals(1, diagnostics.size());
        assertTrue(diagnostics.get(0).message().startsWith("attribute data: {[[[[[[["), diagnostics.get(0).message());
        assertTrue(diagnostics.get(0).message().contains("is not data Kensho can read"), diagnostics.get(0).message());
    }

    @Test
    void aRawImportIsTheFilesText() {
        ComponentSyntax.Result result = extract("""
                import example from './example.js?raw';
                import missing from './missing.js?raw';

                <Chart code={example} />
                """);
        assertEquals("console.log('hi');\n", result.tags().get(0).attributes().get("code"));
        assertEquals(List.of("p.mdx:2:1: import './missing.js?raw': no such file in this test"),
                diagnostics.stream().map(d -> d.file() + ":" + d.line() + ":" + d.column() + ": " + d.message()).toList());
    }
}
