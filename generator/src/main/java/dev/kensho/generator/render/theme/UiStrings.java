package dev.kensho.generator.render.theme;

import java.util.Map;

/**
 * The theme's words in one language ({@code site/i18n/LANG.yml}), with English filling any key the
 * language lacks. Templates read them as {@code ui["key"]}; {0}, {1}, … are the values put in.
 */
public record UiStrings(String lang, Map<String, String> strings) {

    public UiStrings {
        strings = Map.copyOf(strings);
    }

    public String get(String key) {
        return strings.getOrDefault(key, key);
    }

    /** The text of {@code key} with the values put in; {@code KEY.one} instead when the first number among them is 1. */
    public String format(String key, Object... values) {
        String text = get(key);
        for (Object value : values) {
            if (value instanceof Number number) {
                if (number.longValue() == 1 && number.doubleValue() == 1 && strings.containsKey(key + ".one")) {
                    text = strings.get(key + ".one");
                }
                break;
            }
        }
        for (int i = 0; i < values.length; i++) {
            text = text.replace("{" + i + "}", String.valueOf(values[i]));
        }
        return text;
    }
}
