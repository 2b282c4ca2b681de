package dev.kensho.generator.content;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.Suggestion;
import dev.kensho.generator.markdown.StyleSheetPolicy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A site's own look without a theme folder, from site.yml with Starlight's names: {@code logo} ({@code src}, or
 * {@code light} and {@code dark}; {@code alt}; {@code replacesTitle}), {@code favicon}, {@code customCss} and
 * {@code social}. Every file is named relative to content/ and must be a file there (read through
 * {@link ContentFiles}, as every contributor file); custom CSS also passes {@link StyleSheetPolicy}.
 *
 * @param logoLight         the logo's path below content/ ("logo.svg"), or "" for none
 * @param logoDark          the logo shown in dark mode, or the same as {@code logoLight}
 * @param logoAlt           the logo's text alternative
 * @param logoReplacesTitle the logo is shown instead of the site's title (which stays its alt text)
 * @param favicon           the icon's path below content/, or "" for the theme's
 * @param customCss         style sheets below content/, linked after the theme's in this order
 * @param social            links in the header
 */
public record Branding(String logoLight, String logoDark, String logoAlt, boolean logoReplacesTitle, String favicon,
                       List<String> customCss, List<SocialLink> social) {

    public static final Branding NONE = new Branding("", "", "", false, "", List.of(), List.of());

    /** A link in the header, as Starlight's {@code social: [{icon, label, href}]}. */
    public record SocialLink(String icon, String label, String href) {
    }

    public Branding {
        customCss = List.copyOf(customCss);
        social = List.copyOf(social);
    }

    static Branding read(Map<?, ?> settings, ContentFiles files, String text, String displayPath, List<Diagnostic> diagnostics) {
        String light = "";
        String dark = "";
        String alt = "";
        boolean replacesTitle = false;
        Object logo = settings.get("logo");
        if (logo instanceof Map<?, ?> map) {
            unknownKeys(map, "logo", List.of("src", "light", "dark", "alt", "replacesTitle"), text, displayPath, diagnostics);
            if (map.get("src") != null && (map.get("light") != null || map.get("dark") != null)) {
                problem("logo takes src, or light and dark, not both", "logo:", text, displayPath, diagnostics);
            }
            if (map.get("src") == null && map.get("light") == null) {
                problem("logo needs src (or light and dark), a file in content/ such as 'logo.svg'", "logo:", text, displayPath, diagnostics);
            }
            light = map.get("src") == null && map.get("light") == null ? "" : file(map.get("src") != null ? map.get("src") : map.get("light"), "logo", "src:", files, text, displayPath, diagnostics);
            dark = map.get("dark") == null ? light : file(map.get("dark"), "logo.dark", "dark:", files, text, displayPath, diagnostics);
            if (map.get("light") == null && map.get("dark") != null) {
                problem("logo.dark needs logo.light beside it", "dark:", text, displayPath, diagnostics);
            }
            alt = map.get("alt") == null ? "" : String.valueOf(map.get("alt"));
            replacesTitle = Boolean.TRUE.equals(map.get("replacesTitle"));
        } else if (logo != null) {
            problem("logo must be a mapping such as '{src: logo.svg, alt: Our team}'", "logo:", text, displayPath, diagnostics);
        }
        String favicon = settings.get("favicon") == null ? ""
                : file(settings.get("favicon"), "favicon", "favicon:", files, text, displayPath, diagnostics);
        List<String> css = new ArrayList<>();
        Object customCss = settings.get("customCss");
        if (customCss instanceof List<?> list) {
            for (Object entry : list) {
                String path = file(entry, "customCss", String.valueOf(entry), files, text, displayPath, diagnostics);
                if (path.isEmpty()) {
                    continue;
                }
                if (!path.endsWith(".css")) {
                    problem("customCss: '" + entry + "' is not a .css file", String.valueOf(entry), text, displayPath, diagnostics);
                    continue;
                }
                if (styleSheetHolds(files, path, displayPath, diagnostics)) {
                    css.add(path);
                }
            }
        } else if (customCss != null) {
            problem("customCss must be a list of .css files in content/, such as '[custom.css]'", "customCss:", text, displayPath, diagnostics);
        }
        List<SocialLink> social = new ArrayList<>();
        Object socialSetting = settings.get("social");
        if (socialSetting instanceof List<?> list) {
            for (Object entry : list) {
                if (!(entry instanceof Map<?, ?> map) || map.get("href") == null || map.get("label") == null) {
                    problem("each social link needs label and href, such as '{icon: github, label: GitHub, href: https://…}'",
                            "social:", text, displayPath, diagnostics);
                    continue;
                }
                unknownKeys(map, "social", List.of("icon", "label", "href"), text, displayPath, diagnostics);
                String href = String.valueOf(map.get("href"));
                if (UrlSchemes.problem(href) != null) {
                    problem("social: " + UrlSchemes.problem(href), href, text, displayPath, diagnostics);
                    continue;
                }
                social.add(new SocialLink(map.get("icon") == null ? "" : String.valueOf(map.get("icon")), String.valueOf(map.get("label")), href));
            }
        } else if (socialSetting instanceof Map<?, ?> map) {
            // Starlight's older form: {github: https://…}.
            map.forEach((icon, href) -> {
                if (UrlSchemes.problem(String.valueOf(href)) != null) {
                    problem("social: " + UrlSchemes.problem(String.valueOf(href)), String.valueOf(href), text, displayPath, diagnostics);
                } else {
                    social.add(new SocialLink(String.valueOf(icon), String.valueOf(icon), String.valueOf(href)));
                }
            });
        } else if (socialSetting != null) {
            problem("social must be a list of {icon, label, href}", "social:", text, displayPath, diagnostics);
        }
        return new Branding(light, dark, alt, replacesTitle, favicon, css, social);
    }

    /** A file named in site.yml, as its path below content/, or "" (and a diagnostic) when it is not one. */
    private static String file(Object value, String key, String needle, ContentFiles files, String text, String displayPath,
                               List<Diagnostic> diagnostics) {
        if (!(value instanceof String written) || written.isBlank()) {
            problem(key + " must name a file in content/, such as 'logo.svg'", needle, text, displayPath, diagnostics);
            return "";
        }
        String relative = written.strip().replaceFirst("^\\./", "");
        if (UrlSchemes.scheme(relative) != null || relative.startsWith("/") || relative.contains("\\")) {
            problem(key + ": '" + written + "' must be a file in content/, named relative to it (such as 'images/logo.svg')",
                    needle, text, displayPath, diagnostics);
            return "";
        }
        try {
            files.check(ContentFiles.resolve(files.root(), relative), ContentFiles.MAX_ASSET_BYTES);
        } catch (ContentFiles.Refused refused) {
            problem(key + ": '" + written + "' cannot be used: " + refused.getMessage(), needle, text, displayPath, diagnostics);
            return "";
        }
        String problem = ContentFiles.nameProblem(relative);
        if (problem != null) {
            problem(key + ": '" + written + "': " + problem, needle, text, displayPath, diagnostics);
            return "";
        }
        return Path.of(relative).normalize().toString().replace('\\', '/');
    }

    private static boolean styleSheetHolds(ContentFiles files, String relative, String displayPath, List<Diagnostic> diagnostics) {
        String cssDisplay = Path.of(displayPath).resolveSibling(relative).toString();
        String css;
        try {
            css = new String(files.read(files.root().resolve(relative), ContentFiles.MAX_PAGE_BYTES), StandardCharsets.UTF_8);
        } catch (ContentFiles.Refused refused) {
            diagnostics.add(Diagnostic.at(cssDisplay, 1, 1, "custom CSS not read: " + refused.getMessage(), null));
            return false;
        }
        List<StyleSheetPolicy.Problem> problems = StyleSheetPolicy.problems(css);
        String[] lines = css.split("\n", -1);
        for (StyleSheetPolicy.Problem problem : problems) {
            diagnostics.add(Diagnostic.at(cssDisplay, problem.line(), problem.column(), problem.message(),
                    problem.line() - 1 < lines.length ? lines[problem.line() - 1] : null));
        }
        return problems.isEmpty();
    }

    /** Keys of a nested mapping that site.yml does not take, each with the nearest one it does. */
    static void unknownKeys(Map<?, ?> map, String parent, List<String> known, String text, String displayPath, List<Diagnostic> diagnostics) {
        for (Object key : map.keySet()) {
            if (!known.contains(String.valueOf(key))) {
                problem("unknown key '" + parent + "." + key + "'" + Suggestion.didYouMean(String.valueOf(key), known) + "; "
                        + parent + " takes " + String.join(", ", known), key + ":", text, displayPath, diagnostics);
            }
        }
    }

    private static void problem(String message, String needle, String text, String displayPath, List<Diagnostic> diagnostics) {
        diagnostics.add(Diagnostic.at(displayPath, SiteConfig.lineOf(text, needle), 1, "site settings: " + message, null));
    }
}
