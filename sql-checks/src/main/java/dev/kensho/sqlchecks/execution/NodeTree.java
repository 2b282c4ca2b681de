package dev.kensho.sqlchecks.execution;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads PostgreSQL's node strings ({@code nodeToString}, as {@code debug_print_parse} reports a
 * statement's parse tree) into nodes, lists and atoms. The reader knows no node type: a node is its
 * name and its fields by name, so it reads every version's trees alike and callers name the fields
 * they need. Strings in a tree escape blanks, parentheses, braces and backslashes with a backslash
 * ({@code outToken}), so nesting is read exactly; a line break the server's log formatter put where
 * an escaped blank was ({@code format_node_dump}) is that blank.
 */
final class NodeTree {

    /** One node: {@code {NAME :field value …}}. A field's value is a Node, a List, an atom (String) or null ({@code <>}). */
    record Node(String type, Map<String, Object> fields) {

        Object get(String field) {
            return fields.get(field);
        }

        String text(String field) {
            Object value = fields.get(field);
            return value instanceof String s ? s : null;
        }

        Node node(String field) {
            return fields.get(field) instanceof Node n ? n : null;
        }

        List<Object> list(String field) {
            if (fields.get(field) instanceof List<?> list) {
                return List.copyOf(list);
            }
            return List.of();
        }

        long number(String field, long otherwise) {
            String text = text(field);
            try {
                return text == null ? otherwise : Long.parseLong(text);
            } catch (NumberFormatException e) {
                return otherwise;
            }
        }
    }

    /**
     * The first fields of a statement's tree: its {@code commandType} and the name of its {@code utilityStmt}
     * node (null for {@code <>}). Most statements a session runs need nothing more (see {@link SessionOrders#ran}).
     */
    record Head(long commandType, String utilityType) {
    }

    /** Raised for text that is not one well-formed node string. */
    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message);
        }
    }

    private static final int MAX_DEPTH = 2000;
    /** Delimiters are these very instances; an atom that reads "{" (an escaped brace in a string) is another. */
    private static final String OPEN_NODE = "{", CLOSE_NODE = "}", OPEN_LIST = "(", CLOSE_LIST = ")";
    /** The one instance standing for {@code <>} (NULL); a string written {@code \<>} is another. */
    private static final String NULL = "<>";

    private final String text;
    private int at;
    private int depth;

    private NodeTree(String text) {
        this.text = text;
    }

    /** The one node {@code text} holds. */
    static Node read(String text) throws Malformed {
        NodeTree reader = new NodeTree(text);
        Object value = reader.value();
        if (!(value instanceof Node node) || reader.token() != null) {
            throw new Malformed("not one node");
        }
        return node;
    }

    /** The nodes of the one list {@code text} holds ({@code ({QUERY …} …)}, as debug_print_rewritten reports), or none for {@code <>}. */
    static List<Node> readList(String text) throws Malformed {
        NodeTree reader = new NodeTree(text);
        Object value = reader.value();
        if (reader.token() != null) {
            throw new Malformed("not one list");
        }
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw new Malformed("not a list");
        }
        List<Node> nodes = new ArrayList<>();
        for (Object item : list) {
            if (!(item instanceof Node node)) {
                throw new Malformed("a list item that is no node");
            }
            nodes.add(node);
        }
        return nodes;
    }

    /**
     * The {@link Head} of the tree {@code text} holds. A Query writes {@code commandType} and {@code utilityStmt} before
     * any nested node in every supported version, so they are read without reading the rest (a statement's tree is
     * kilobytes and reading all of it was most of the verifier's own CPU time); a tree laid out otherwise is read whole.
     */
    static Head head(String text) throws Malformed {
        NodeTree reader = new NodeTree(text);
        String type = reader.token() == OPEN_NODE ? reader.token() : null;
        if (type != null && !isDelimiter(type)) {
            String command = null;
            String field = null;
            for (String token = reader.token(); token != null && !isDelimiter(token) && token != NULL; token = reader.token()) {
                if (token.startsWith(":")) {
                    field = token.substring(1);
                    if (field.equals("utilityStmt")) {
                        String value = reader.token();
                        long commandType = new Node(type, command == null ? Map.of() : Map.of("commandType", command))
                                .number("commandType", -1);
                        if (value == NULL) {
                            return new Head(commandType, null);
                        }
                        String name = value == OPEN_NODE ? reader.token() : null;
                        if (name != null && !isDelimiter(name) && name != NULL && !name.startsWith(":")) {
                            return new Head(commandType, name);
                        }
                        break;
                    }
                } else if ("commandType".equals(field)) {
                    command = command == null ? token : command + " " + token; // a datum of several atoms, as node() joins it
                }
            }
        }
        Node top = read(text);
        Node utility = top.node("utilityStmt");
        return new Head(top.number("commandType", -1), utility == null ? null : utility.type());
    }

    private Object value() throws Malformed {
        String token = token();
        if (token == null) {
            throw new Malformed("ends early");
        }
        return valueFrom(token);
    }

    private Object valueFrom(String token) throws Malformed {
        if (++depth > MAX_DEPTH) {
            throw new Malformed("nested too deeply");
        }
        try {
            if (token == OPEN_NODE) {
                return node();
            }
            if (token == OPEN_LIST) {
                List<Object> items = new ArrayList<>();
                for (String next = token(); next != CLOSE_LIST; next = token()) {
                    if (next == null || next == CLOSE_NODE) {
                        throw new Malformed("unclosed list");
                    }
                    items.add(valueFrom(next));
                }
                return items;
            }
            if (token == CLOSE_LIST || token == CLOSE_NODE) {
                throw new Malformed("unexpected " + token);
            }
            return token == NULL ? null : token;
        } finally {
            depth--;
        }
    }

    private Node node() throws Malformed {
        String type = token();
        if (type == null || isDelimiter(type) || type == NULL || type.startsWith(":")) {
            throw new Malformed("a node without a name");
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        String next = token();
        while (true) {
            if (next == null) {
                throw new Malformed("unclosed node");
            }
            if (next == CLOSE_NODE) {
                // PostgreSQL 14 writes a range table entry as RTE, 15 on as RANGETBLENTRY: one name for every reader.
                return new Node(type.equals("RTE") ? "RANGETBLENTRY" : type, fields);
            }
            if (isDelimiter(next) || !next.startsWith(":")) {
                throw new Malformed("a field without a name in " + type);
            }
            String field = next.substring(1);
            next = token();
            if (next == null || next == CLOSE_NODE || (next.startsWith(":") && !isDelimiter(next))) {
                fields.put(field, null);
                continue;
            }
            if (next == OPEN_NODE || next == OPEN_LIST) {
                fields.put(field, valueFrom(next));
                next = token();
                continue;
            }
            // A datum ("4 [ 1 0 0 0 ]") is several atoms: the value runs to the next field or the node's end.
            String first = next;
            StringBuilder atoms = new StringBuilder(next);
            for (next = token(); next != null && next != CLOSE_NODE && (isDelimiter(next) || !next.startsWith(":")); next = token()) {
                if (isDelimiter(next)) {
                    throw new Malformed("a datum holding " + next);
                }
                atoms.append(' ').append(next);
            }
            fields.put(field, atoms.length() == NULL.length() && first == NULL ? null : atoms.toString());
        }
    }

    private static boolean isDelimiter(String token) {
        return token == OPEN_NODE || token == CLOSE_NODE || token == OPEN_LIST || token == CLOSE_LIST;
    }

    /** The next token: a delimiter, or an atom with its escapes resolved; null at the end. */
    private String token() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
        if (at >= text.length()) {
            return null;
        }
        char c = text.charAt(at);
        switch (c) {
            case '{' -> { at++; return OPEN_NODE; }
            case '}' -> { at++; return CLOSE_NODE; }
            case '(' -> { at++; return OPEN_LIST; }
            case ')' -> { at++; return CLOSE_LIST; }
            default -> { }
        }
        // Most atoms hold no escape: read as one substring; the first backslash switches to the builder.
        int start = at;
        while (at < text.length()) {
            c = text.charAt(at);
            if (c == '\\' || Character.isWhitespace(c) || c == '{' || c == '}' || c == '(' || c == ')') {
                break;
            }
            at++;
        }
        if (at >= text.length() || text.charAt(at) != '\\') {
            String read = text.substring(start, at);
            // A substring is never one of the delimiter instances above; NULL is told by its text.
            return read.equals(NULL) ? NULL : read;
        }
        StringBuilder atom = new StringBuilder().append(text, start, at);
        boolean escaped = false;
        while (at < text.length()) {
            c = text.charAt(at);
            if (c == '\\' && at + 1 < text.length()) {
                char escapedChar = text.charAt(at + 1);
                atom.append(escapedChar == '\n' ? ' ' : escapedChar);
                escaped = true;
                at += 2;
                continue;
            }
            if (Character.isWhitespace(c) || "{}()".indexOf(c) >= 0) {
                break;
            }
            atom.append(c);
            at++;
        }
        String read = atom.toString();
        // A fresh String is never one of the delimiter or NULL instances above.
        return !escaped && read.equals(NULL) ? NULL : read;
    }
}
