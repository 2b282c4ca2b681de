package dev.kensho.generator.content;

/**
 * One language of a multilingual site, as Starlight's {@code locales} option: pages in the folder
 * named by {@code key} (none for the root locale) are in this language.
 *
 * @param key   the folder ("en"), or {@link #ROOT} for pages at the top of content/
 * @param label the name shown in the language picker ("English")
 * @param lang  BCP 47 tag for {@code <html lang>} and {@code hreflang} ("en", "ja")
 * @param dir   "ltr" or "rtl"
 */
public record SiteLocale(String key, String label, String lang, String dir) {

    public static final String ROOT = "root";

    /** The folder prefix of this locale's pages: "" for the root locale, else "en/". */
    public String prefix() {
        return key.equals(ROOT) ? "" : key + "/";
    }
}
