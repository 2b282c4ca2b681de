package dev.kensho.generator.markdown;

import dev.kensho.generator.render.gate.HtmlGate;
import org.htmlunit.cssparser.dom.AbstractCSSRuleImpl;
import org.htmlunit.cssparser.dom.CSSCharsetRuleImpl;
import org.htmlunit.cssparser.dom.CSSFontFaceRuleImpl;
import org.htmlunit.cssparser.dom.CSSImportRuleImpl;
import org.htmlunit.cssparser.dom.CSSMediaRuleImpl;
import org.htmlunit.cssparser.dom.CSSStyleRuleImpl;
import org.htmlunit.cssparser.dom.CSSStyleSheetImpl;
import org.htmlunit.cssparser.dom.Property;
import org.htmlunit.cssparser.parser.CSSErrorHandler;
import org.htmlunit.cssparser.parser.CSSOMParser;
import org.htmlunit.cssparser.parser.CSSParseException;
import org.htmlunit.cssparser.parser.InputSource;
import org.htmlunit.cssparser.parser.Locatable;
import org.htmlunit.cssparser.parser.Locator;
import org.htmlunit.cssparser.parser.condition.Condition;
import org.htmlunit.cssparser.parser.selector.ChildSelector;
import org.htmlunit.cssparser.parser.selector.DescendantSelector;
import org.htmlunit.cssparser.parser.selector.DirectAdjacentSelector;
import org.htmlunit.cssparser.parser.selector.ElementSelector;
import org.htmlunit.cssparser.parser.selector.GeneralAdjacentSelector;
import org.htmlunit.cssparser.parser.selector.PseudoElementSelector;
import org.htmlunit.cssparser.parser.selector.Selector;
import org.htmlunit.cssparser.parser.selector.SimpleSelector;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What contributor CSS may reach, judged on the style sheet as a CSS parser reads it (htmlunit-cssparser), not on its
 * text: the theme's evidence (✓ marks, checked code, compared rows, verdicts, run controls, exercises, "not verified"
 * labels) is out of its reach, so a page cannot draw, hide or reword a mark or a verdict with style any more than with
 * markup. The rules, each refused at its line and column:
 * <ul>
 * <li>Reach: every selector ends in a class of the site's own (any class but the theme's, {@link HtmlGate#isThemeStyleTarget}),
 * in a child of one ({@code .note > p}; never a {@code div}, {@code figure}, {@code details}, {@code section} or
 * {@code aside}, what the theme's evidence and components are made of), or is the root ({@code :root},
 * {@code :root[data-theme=dark]}) setting custom properties. No theme class anywhere in a selector; no attribute
 * selector but the root's {@code data-theme}; no {@code :has()}, {@code :is()}, {@code :where()} or {@code :not()}.</li>
 * <li>Drawing and covering: no {@code content}, no {@code !important}; only properties that colour, frame, space and lay
 * out the element itself (no position, z-index, transform, opacity, filter, clip, mask, overflow or outline, no size,
 * float or grid: nothing that paints over a neighbour, lets one be cut away or overflow onto another), margins never
 * negative; and the theme's own colour variables
 * ({@link #THEME_VARIABLES}) are not the contributor's to set. What is inherited from a contributor's element into
 * evidence inside it (colour, font, size) the theme sets again on the evidence itself (kensho.css).</li>
 * <li>Only {@code @media} and {@code @font-face} at-rules; anything the parser had to skip or recover from is refused,
 * since a browser would recover in its own way (nesting, {@code @layer}, {@code @supports} included).</li>
 * </ul>
 */
final class StyleSheetReach {

    /**
     * The theme's custom properties that colour the evidence and the code it checked (kensho.css): a contributor setting
     * {@code --muted} to the background colour would make the "not verified" label vanish. Others (--accent,
     * --sidebar-bg, a site's own) are free.
     */
    static final Set<String> THEME_VARIABLES = Set.of("--bg", "--fg", "--muted", "--border", "--code-bg", "--ok", "--ok-bg",
            "--mark-bg", "--danger", "--lifeline", "--font-body", "--header-h", "--aside-accent", "--aside-bg");
    private static final List<String> THEME_VARIABLE_PREFIXES = List.of("--tok-", "--kensho-");
    /**
     * The theme's variables a site may set for its look, on :root only: set on an element of the site's own they would
     * reach a snippet inside it (--accent: the run controls' colour).
     */
    static final Set<String> BRANDING_VARIABLES = Set.of("--accent", "--sidebar-bg");
    /**
     * Font families the theme's evidence and code are drawn in (kensho.css): an @font-face of the same name would
     * replace their glyphs, so a snippet could read differently from what ran.
     */
    private static final Set<String> THEME_FONTS = Set.of("hiragino sans", "hiragino kaku gothic pron", "yu gothic ui", "meiryo",
            "noto sans jp", "sans-serif", "ui-monospace", "sfmono-regular", "menlo", "consolas", "monospace", "system-ui",
            "serif", "ui-sans-serif");

    /**
     * Properties that style an element in its own box: colour, background, border, font, spacing, flex layout. Nothing
     * that sets a box's size (width, height, their min and max, aspect-ratio, grid tracks) or floats it: a box made
     * smaller than a snippet inside it lets the snippet overflow onto what follows, and the next snippet's mark could
     * then lie over this one's "not verified" label. In flow and in a flex line, boxes never overlap.
     */
    private static final Set<String> PROPERTIES = Set.of("color", "font", "font-family", "font-weight", "font-style", "font-size",
            "font-stretch", "line-height", "text-align", "text-transform", "word-break", "overflow-wrap",
            "hyphens", "box-shadow", "border-collapse", "border-spacing", "table-layout", "caption-side", "vertical-align",
            "display", "box-sizing", "gap", "row-gap", "column-gap",
            "cursor", "accent-color", "caret-color", "object-fit", "object-position", "scroll-margin-top",
            "list-style-type", "list-style-position",
            "text-decoration", "text-decoration-line", "text-decoration-style");
    private static final List<String> PROPERTY_PREFIXES = List.of("background", "border", "margin", "padding", "flex", "justify-",
            "align-", "place-", "font-variant");
    /** What an @font-face rule may describe; its src passes StyleSheetPolicy's URL check. */
    private static final Set<String> FONT_FACE = Set.of("font-family", "src", "font-weight", "font-style", "font-display",
            "font-stretch", "unicode-range");
    /** Block, inline and flex boxes; not inline blocks or grids, whose size a contributor could fix below their content's. */
    private static final Set<String> DISPLAY = Set.of("block", "inline", "flex", "flow-root", "list-item", "none");
    private static final Set<String> PSEUDO_CLASSES = Set.of("hover", "focus", "focus-visible", "focus-within", "active", "visited",
            "link", "any-link", "target", "first-child", "last-child", "only-child", "first-of-type", "last-of-type", "only-of-type",
            "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type", "root");
    private static final Set<String> PSEUDO_ELEMENTS = Set.of("marker", "selection", "first-letter", "first-line", "placeholder");
    /** What the theme's evidence and components are made of at their top: a child of a contributor's element may be one. */
    private static final Set<String> THEME_BLOCKS = Set.of("div", "figure", "details", "section", "aside", "nav", "summary");
    private static final Pattern MARGIN = Pattern.compile("(?i)(?:auto|0|\\d*\\.?\\d+[a-z%]*)(?:\\s+(?:auto|0|\\d*\\.?\\d+[a-z%]*)){0,3}");
    private static final Pattern INVALID_TOKEN = Pattern.compile("Invalid token \"((?:[^\"\\\\]|\\\\.)*)\"");

    private StyleSheetReach() {
    }

    static List<StyleSheetPolicy.Problem> problems(String css) {
        List<StyleSheetPolicy.Problem> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        CSSOMParser parser = new CSSOMParser();
        parser.setErrorHandler(new CSSErrorHandler() {
            @Override
            public void warning(CSSParseException e) {
                unreadable(e);
            }

            @Override
            public void error(CSSParseException e) {
                unreadable(e);
            }

            @Override
            public void fatalError(CSSParseException e) {
                unreadable(e);
            }

            // A parser skips what it cannot read and goes on; a browser skips differently, so what was skipped is refused.
            private void unreadable(CSSParseException e) {
                if (!seen.add(e.getLineNumber() + ":" + e.getColumnNumber())) {
                    return;
                }
                Matcher token = INVALID_TOKEN.matcher(String.valueOf(e.getMessage()));
                String message = String.valueOf(e.getMessage()).replaceAll("\\s+", " ").strip();
                String what = token.find() ? "unexpected '" + token.group(1) + "'"
                        : message.startsWith("Lexical error") ? "text it cannot split into CSS tokens (such as a comment or a string "
                        + "that is never closed)" : message;
                problems.add(new StyleSheetPolicy.Problem(Math.max(1, e.getLineNumber()), Math.max(1, e.getColumnNumber()),
                        "custom CSS must be plain CSS that Kensho can check: " + what + " (nesting, @layer, @supports and "
                                + "rules a browser would have to recover from are refused)"));
            }
        });
        CSSStyleSheetImpl sheet;
        try {
            sheet = parser.parseStyleSheet(new InputSource(new StringReader(css)), null);
        } catch (IOException | RuntimeException e) {
            problems.add(new StyleSheetPolicy.Problem(1, 1, "custom CSS could not be read as CSS: " + e.getMessage()));
            return problems;
        }
        if (sheet != null) {
            rules(sheet.getCssRules().getRules(), problems);
        }
        return problems;
    }

    private static void rules(List<AbstractCSSRuleImpl> rules, List<StyleSheetPolicy.Problem> problems) {
        for (AbstractCSSRuleImpl rule : rules) {
            if (rule instanceof CSSStyleRuleImpl style) {
                boolean root = false;
                boolean own = false;
                for (Selector selector : style.getSelectors()) {
                    boolean isRoot = selector(selector, rule, problems);
                    root |= isRoot;
                    own |= !isRoot;
                }
                for (Property property : style.getStyle().getProperties()) {
                    declaration(property, root, own, problems);
                }
            } else if (rule instanceof CSSMediaRuleImpl media) {
                rules(media.getCssRules().getRules(), problems);
            } else if (rule instanceof CSSFontFaceRuleImpl fontFace) {
                for (Property property : fontFace.getStyle().getProperties()) {
                    String name = property.getName().toLowerCase(Locale.ROOT);
                    String family = property.getValue() == null ? "" : property.getValue().getCssText().strip()
                            .replaceAll("^[\"']|[\"']$", "").strip().toLowerCase(Locale.ROOT);
                    if (!FONT_FACE.contains(name)) {
                        add(problems, property, "'" + property.getName() + "' is not allowed in @font-face (allowed: "
                                + String.join(", ", FONT_FACE.stream().sorted().toList()) + ")");
                    } else if (name.equals("font-family") && THEME_FONTS.contains(family)) {
                        add(problems, property, "@font-face may not redefine '" + family + "': the theme draws its evidence and "
                                + "code in it; give the site's font a name of its own");
                    }
                }
            } else if (!(rule instanceof CSSImportRuleImpl) && !(rule instanceof CSSCharsetRuleImpl)) {
                // @import is StyleSheetPolicy's to refuse (with its own advice).
                String text = rule.getCssText().strip();
                String name = unescape(text).split("[\\s{(;]", 2)[0];
                if (!name.equalsIgnoreCase("@import")) {
                    add(problems, rule, "'" + name + "' is not allowed in custom CSS (allowed at-rules: @media, @font-face)");
                }
            }
        }
    }

    /** One selector of a rule: refused where it could reach the theme's elements. True when it is the root. */
    private static boolean selector(Selector selector, AbstractCSSRuleImpl rule, List<StyleSheetPolicy.Problem> problems) {
        List<Character> combinators = new ArrayList<>();
        List<ElementSelector> compounds = new ArrayList<>();
        PseudoElementSelector[] pseudo = new PseudoElementSelector[1];
        if (!flatten(selector, ' ', combinators, compounds, pseudo)) {
            add(problems, rule, "selector '" + text(selector) + "' is not allowed in custom CSS");
            return false;
        }
        boolean refused = false;
        for (ElementSelector compound : compounds) {
            refused |= compound(compound, rule, problems);
        }
        if (pseudo[0] != null && !PSEUDO_ELEMENTS.contains(pseudo[0].getLocalName().toLowerCase(Locale.ROOT))) {
            String name = pseudo[0].getLocalName().toLowerCase(Locale.ROOT);
            add(problems, pseudo[0], "'::" + name + "' is not allowed in custom CSS"
                    + (name.equals("before") || name.equals("after") ? " (it draws only with 'content', which custom CSS may not use)" : ""));
            refused = true;
        }
        if (refused || compounds.isEmpty()) {
            if (compounds.isEmpty()) {
                add(problems, rule, "selector '" + text(selector) + "' is not allowed in custom CSS");
            }
            return false;
        }
        ElementSelector subject = compounds.get(compounds.size() - 1);
        if (isRoot(subject)) {
            return true;
        }
        if (hasClass(subject)) {
            return false;
        }
        int last = compounds.size() - 1;
        String element = subject.getLocalName() == null ? null : subject.getLocalName().toLowerCase(Locale.ROOT);
        if (last > 0 && combinators.get(last) == '>' && hasClass(compounds.get(last - 1)) && element != null
                && !THEME_BLOCKS.contains(element)) {
            return false;
        }
        add(problems, rule, "selector '" + text(selector) + "' could reach the theme's evidence: end each selector in a class of "
                + "the site's own (such as .note), a child of one (.note > p), or :root (for custom properties)");
        return false;
    }

    private static boolean flatten(Selector selector, char combinator, List<Character> combinators, List<ElementSelector> compounds,
                                   PseudoElementSelector[] pseudo) {
        Selector left;
        SimpleSelector right;
        char joined;
        if (selector instanceof ElementSelector element) {
            combinators.add(combinator);
            compounds.add(element);
            return true;
        } else if (selector instanceof PseudoElementSelector element) {
            pseudo[0] = element;
            return true;
        } else if (selector instanceof DescendantSelector descendant) {
            left = descendant.getAncestorSelector();
            right = descendant.getSimpleSelector();
            joined = ' ';
        } else if (selector instanceof ChildSelector child) {
            left = child.getAncestorSelector();
            right = child.getSimpleSelector();
            joined = '>';
        } else if (selector instanceof DirectAdjacentSelector adjacent) {
            left = adjacent.getSelector();
            right = adjacent.getSimpleSelector();
            joined = '+';
        } else if (selector instanceof GeneralAdjacentSelector sibling) {
            left = sibling.getSelector();
            right = sibling.getSimpleSelector();
            joined = '~';
        } else {
            return false;
        }
        if (right instanceof PseudoElementSelector element) {
            pseudo[0] = element;
            return flatten(left, combinator, combinators, compounds, pseudo);
        }
        return right instanceof ElementSelector element && flatten(left, combinator, combinators, compounds, pseudo)
                && flatten(element, joined, combinators, compounds, pseudo);
    }

    /** Refuses what a compound selector may not hold; true when something was refused. */
    private static boolean compound(ElementSelector compound, AbstractCSSRuleImpl rule, List<StyleSheetPolicy.Problem> problems) {
        boolean refused = false;
        List<Condition> conditions = compound.getConditions() == null ? List.of() : compound.getConditions();
        for (Condition condition : conditions) {
            String value = condition.getValue() == null ? "" : condition.getValue();
            Locatable at = condition.getLocator() != null ? condition : rule;
            String problem = switch (condition.getConditionType()) {
                case CLASS_CONDITION -> HtmlGate.isThemeStyleTarget(value) ? "'." + value + "' is the theme's class (evidence, checked code, "
                        + "verdicts, run controls, exercises): custom CSS may not style it" : null;
                case ID_CONDITION -> null;
                case PSEUDO_CLASS_CONDITION -> {
                    String name = value.toLowerCase(Locale.ROOT).split("\\(", 2)[0];
                    yield PSEUDO_CLASSES.contains(name) ? null : "':" + name + "' is not allowed in custom CSS";
                }
                case HAS_PSEUDO_CLASS_CONDITION, IS_PSEUDO_CLASS_CONDITION, WHERE_PSEUDO_CLASS_CONDITION, NOT_PSEUDO_CLASS_CONDITION ->
                        "':" + condition.getConditionType().name().split("_")[0].toLowerCase(Locale.ROOT) + "()' is not allowed in custom "
                                + "CSS: it selects through other elements, the theme's included; give the element a class of its own";
                case ATTRIBUTE_CONDITION -> "data-theme".equalsIgnoreCase(condition.getLocalName()) && isRoot(compound) ? null
                        : attribute(condition);
                default -> attribute(condition);
            };
            if (problem != null) {
                add(problems, at, problem);
                refused = true;
            }
        }
        return refused;
    }

    private static String attribute(Condition condition) {
        return "attribute selector '[" + condition.getLocalName() + "]' is not allowed in custom CSS (only :root[data-theme=…]); "
                + "give the element a class of its own";
    }

    /**
     * @param root the rule styles the root
     * @param own  the rule styles elements (of the site's own, or ones it refused)
     */
    private static void declaration(Property property, boolean root, boolean own, List<StyleSheetPolicy.Problem> problems) {
        String name = property.getName().toLowerCase(Locale.ROOT);
        String value = property.getValue() == null ? "" : property.getValue().getCssText().strip();
        if (property.isImportant()) {
            add(problems, property, "'!important' is not allowed in custom CSS: the theme's evidence keeps its own style "
                    + "(a more specific selector of the site's own wins without it)");
        }
        if (name.startsWith("--")) {
            if (THEME_VARIABLES.contains(name) || THEME_VARIABLE_PREFIXES.stream().anyMatch(name::startsWith)) {
                add(problems, property, "'" + name + "' is the theme's: it colours the evidence and the code it checked; custom CSS "
                        + "may set --accent, --sidebar-bg and properties of its own");
            } else if (own && BRANDING_VARIABLES.contains(name)) {
                add(problems, property, "'" + name + "' may be set on :root only: on an element it would reach the theme's "
                        + "evidence and run controls inside it");
            }
            return;
        }
        if (name.equals("content")) {
            add(problems, property, "'content' is not allowed in custom CSS: generated text could draw a mark or a verdict "
                    + "the build never gave");
        } else if (root) {
            add(problems, property, ":root takes only custom properties in custom CSS (such as --accent): '" + name + "' would be "
                    + "inherited by every element, the theme's evidence included");
        } else if (!PROPERTIES.contains(name) && PROPERTY_PREFIXES.stream().noneMatch(name::startsWith)) {
            add(problems, property, "'" + name + "' is not allowed in custom CSS: it could hide, cover, move or squeeze what the "
                    + "build checked (allowed: colours, backgrounds, borders, fonts, spacing and flex layout)");
        } else if (name.startsWith("margin") && !MARGIN.matcher(value).matches()) {
            add(problems, property, "margin '" + value + "' is not allowed in custom CSS: only plain lengths that are not "
                    + "negative, since a negative margin pulls an element over its neighbours");
        } else if (name.startsWith("text-decoration") && !value.toLowerCase(Locale.ROOT).trim()
                .matches("(none|underline|solid|double|dotted|dashed|wavy)(\\s+(none|underline|solid|double|dotted|dashed|wavy))*")) {
            // A decoration propagates into every descendant's text and no descendant can undo it: an overline as thick
            // as a line, in the background's colour, covers the checked code under a mark.
            add(problems, property, "'" + name + ": " + value + "' is not allowed in custom CSS: a decoration is drawn over the "
                    + "text of everything inside the element, the theme's evidence included (allowed: none, underline and a style)");
        } else if (name.startsWith("flex") && value.toLowerCase(Locale.ROOT).contains("reverse")) {
            add(problems, property, "'" + name + ": " + value + "' is not allowed in custom CSS: a reversed flex line shows a "
                    + "snippet's evidence apart from the SQL it belongs to");
        } else if (name.startsWith("list-style") && !value.matches("(?i)[a-z-]+(\\s+[a-z-]+)?")) {
            add(problems, property, "'" + name + ": " + value + "' is not allowed in custom CSS: a marker may be a keyword "
                    + "(disc, decimal, …), not text or a picture");
        } else if (name.equals("display") && !DISPLAY.contains(value.toLowerCase(Locale.ROOT))) {
            add(problems, property, "'display: " + value + "' is not allowed in custom CSS (allowed: "
                    + String.join(", ", DISPLAY.stream().sorted().toList()) + ")");
        }
    }

    /** An at-keyword as a browser reads it: {@code @\\6cayer} is {@code @layer}. */
    private static String unescape(String keyword) {
        Matcher escape = Pattern.compile("\\\\(?:([0-9a-fA-F]{1,6})\\s?|(.))").matcher(keyword);
        StringBuilder out = new StringBuilder();
        while (escape.find()) {
            escape.appendReplacement(out, Matcher.quoteReplacement(escape.group(1) != null
                    ? Character.toString(Math.min(Integer.parseInt(escape.group(1), 16), Character.MAX_CODE_POINT)) : escape.group(2)));
        }
        return escape.appendTail(out).toString();
    }

    private static boolean isRoot(ElementSelector compound) {
        return "html".equalsIgnoreCase(compound.getLocalName()) || compound.getConditions() != null && compound.getConditions().stream()
                .anyMatch(c -> c.getConditionType() == Condition.ConditionType.PSEUDO_CLASS_CONDITION && "root".equalsIgnoreCase(c.getValue()));
    }

    private static boolean hasClass(ElementSelector compound) {
        return compound.getConditions() != null && compound.getConditions().stream()
                .anyMatch(c -> c.getConditionType() == Condition.ConditionType.CLASS_CONDITION);
    }

    /** A selector as written, without the parser's implied universal selector ("*.note"). */
    private static String text(Selector selector) {
        return selector.toString().replaceAll("\\*(?=[.:\\[#])", "");
    }

    private static void add(List<StyleSheetPolicy.Problem> problems, Locatable at, String message) {
        Locator locator = at.getLocator();
        problems.add(new StyleSheetPolicy.Problem(locator == null ? 1 : Math.max(1, locator.getLineNumber()),
                locator == null ? 1 : Math.max(1, locator.getColumnNumber()), message));
    }
}
