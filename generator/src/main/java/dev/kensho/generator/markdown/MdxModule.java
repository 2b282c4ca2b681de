package dev.kensho.generator.markdown;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.kensho.generator.Diagnostic;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A page's MDX module: its {@code import} and {@code export} statements, anywhere outside code, as MDX
 * reads them. Kensho runs no JavaScript, so a statement is not executed: {@code export const name = value}
 * with a literal value (text, a number, an object or array written as data) defines a name that
 * component attributes may use ({@code items={name}}); an imported name is known to come from
 * elsewhere, so using it as a value fails with a message saying what to write instead.
 */
public final class MdxModule {

    private static final Pattern STATEMENT_START = Pattern.compile("^(import|export)\\s");
    private static final Pattern EXPORT_CONST = Pattern.compile("^export\\s+(?:const|let|var)\\s+([A-Za-z_$][\\w$]*)\\s*=\\s*(.*?);?\\s*$",
            Pattern.DOTALL);
    private static final Pattern IMPORT_FROM = Pattern.compile("^import\\s+(.*?)\\s+from\\s+['\"]([^'\"]*)['\"]\\s*;?\\s*$", Pattern.DOTALL);
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][\\w$]*");
    /** Lines one statement may span. */
    private static final int MAX_STATEMENT_LINES = 200;
    /** Nesting of objects and arrays in a value: data for a template, not a program. */
    private static final int MAX_VALUE_NESTING = 32;

    private static final JsonMapper DATA = JsonMapper.builder(new JsonFactoryBuilder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_VALUE_NESTING).build()).build())
            .enable(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES, JsonReadFeature.ALLOW_SINGLE_QUOTES, JsonReadFeature.ALLOW_TRAILING_COMMA,
                    JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .build();

    /** Reads a file an import names with Vite's {@code ?raw} suffix, relative to the page, inside content/. */
    @FunctionalInterface
    public interface RawFiles {
        String read(String path) throws ValueProblem;
    }

    private final Map<String, Object> constants = new HashMap<>();
    /** Imported name → the module it comes from. */
    private final Map<String, String> imports = new HashMap<>();

    /**
     * Reads and blanks the page's ESM statements (lines keep their numbers).
     *
     * @param inCode which lines are inside code fences
     */
    static MdxModule read(String[] lines, boolean[] inCode, String file, RawFiles rawFiles, List<Diagnostic> diagnostics) {
        MdxModule module = new MdxModule();
        for (int i = 0; i < lines.length; i++) {
            if (inCode[i] || !(lines[i].startsWith("import") || lines[i].startsWith("export")) || !STATEMENT_START.matcher(lines[i]).lookingAt()) {
                continue;
            }
            int end = statementEnd(lines, i);
            StringBuilder statement = new StringBuilder();
            for (int k = i; k <= end; k++) {
                statement.append(k == i ? "" : "\n").append(lines[k]);
            }
            String first = lines[i];
            for (int k = i; k <= end; k++) {
                lines[k] = "";
            }
            try {
                module.declare(statement.toString().strip(), rawFiles);
            } catch (ValueProblem problem) {
                diagnostics.add(Diagnostic.at(file, i + 1, 1, problem.getMessage(), first));
            }
            i = end;
        }
        return module;
    }

    /** The last line of the statement starting at {@code start}: where its brackets close and it does not continue. */
    private static int statementEnd(String[] lines, int start) {
        JsScanner scanner = new JsScanner(false);
        for (int k = start; k < lines.length && k - start < MAX_STATEMENT_LINES; k++) {
            String line = lines[k];
            for (int c = 0; c < line.length(); c++) {
                c = scanner.read(line, c);
            }
            String trimmed = line.strip();
            boolean continues = trimmed.endsWith("=") || trimmed.endsWith(",") || (lines[start].startsWith("import") && !trimmed.matches(".*['\"];?$"));
            scanner.endLine();
            if (scanner.atTop() && !continues) {
                return k;
            }
        }
        return Math.min(lines.length - 1, start + MAX_STATEMENT_LINES - 1);
    }

    private void declare(String statement, RawFiles rawFiles) throws ValueProblem {
        Matcher constant = EXPORT_CONST.matcher(statement);
        if (constant.matches()) {
            constants.put(constant.group(1), value(constant.group(2).strip(), constant.group(1)));
            return;
        }
        Matcher imported = IMPORT_FROM.matcher(statement);
        if (imported.matches() && imported.group(2).endsWith("?raw") && IDENTIFIER.matcher(imported.group(1)).matches()) {
            // import code from './example.js?raw': the file's text, as Vite gives it (a file inside content/ only).
            String path = imported.group(2).substring(0, imported.group(2).length() - "?raw".length());
            constants.put(imported.group(1), rawFiles.read(path));
            return;
        }
        if (imported.matches()) {
            Matcher names = IDENTIFIER.matcher(imported.group(1).replaceAll("\\b\\w+\\s+as\\s+", "").replace("type ", ""));
            while (names.find()) {
                imports.put(names.group(), imported.group(2));
            }
        }
        // Other statements (export default, export function, side-effect imports) define nothing a value can use.
    }

    /** The value of an attribute written in braces ({@code {12}}, {@code {"x"}}, {@code {{a: 1}}}, {@code {[1, 2]}}, {@code {name}}). */
    Object value(String text, String attribute) throws ValueProblem {
        if (text.equals("true") || text.equals("false")) {
            return Boolean.valueOf(text);
        }
        if (text.equals("null") || text.equals("undefined")) {
            return "";
        }
        if (text.matches("-?\\d+")) {
            return Long.valueOf(text);
        }
        if (text.matches("-?\\d+\\.\\d+")) {
            return Double.valueOf(text);
        }
        if (text.length() >= 2 && text.charAt(0) == '`' && text.charAt(text.length() - 1) == '`') {
            String inside = text.substring(1, text.length() - 1);
            if (inside.contains("${")) {
                throw new ValueProblem(attribute + ": a template string with ${…} needs JavaScript to run; write the text itself");
            }
            return inside.replace("\\`", "`");
        }
        if (text.length() >= 2 && (text.charAt(0) == '"' || text.charAt(0) == '\'') && text.charAt(text.length() - 1) == text.charAt(0)) {
            return text.substring(1, text.length() - 1);
        }
        if (text.startsWith("{") || text.startsWith("[")) {
            try {
                return DATA.readValue(text, Object.class);
            } catch (JsonProcessingException e) {
                throw new ValueProblem(attribute + ": {" + abbreviate(text) + "} is not data Kensho can read (objects, arrays, text, "
                        + "numbers and true/false, written out; no names or calls): " + e.getOriginalMessage());
            }
        }
        if (IDENTIFIER.matcher(text).matches()) {
            if (constants.containsKey(text)) {
                return constants.get(text);
            }
            if (imports.containsKey(text)) {
                throw new ValueProblem(attribute + ": " + text + " is imported from '" + imports.get(text)
                        + "', and Kensho runs no JavaScript; write the value here, or as 'export const " + text + " = …' in this page");
            }
            throw new ValueProblem(attribute + ": " + text + " is not defined on this page; add 'export const " + text + " = …'");
        }
        throw new ValueProblem(attribute + ": {" + abbreviate(text) + "} needs JavaScript to run; write the value itself "
                + "(text, a number, true/false, an object or array of those) or a name from 'export const'");
    }

    private static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }

    /** An attribute or export value that cannot be read as data. */
    public static final class ValueProblem extends Exception {
        public ValueProblem(String message) {
            super(message);
        }
    }
}
