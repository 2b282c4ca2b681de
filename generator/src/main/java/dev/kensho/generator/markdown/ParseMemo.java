package dev.kensho.generator.markdown;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.ContentFiles;
import dev.kensho.generator.content.Page;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Pages parsed by an earlier build of the same session (the preview), reused when nothing a parse reads changed: the
 * page as loaded (its source text, front matter, paths and language), the setting it is parsed in (the theme's
 * components, site.yml) and the text of every file it read (imports, diagrams), read again through the content gate.
 * Only a page that parsed without a problem is kept, so a problem is always found again. A one-page edit then parses
 * one page.
 */
public final class ParseMemo {

    private record Entry(Page page, String frontMatter, String setting, MarkdownDocument document) {
    }

    private final Map<String, Entry> pages = new ConcurrentHashMap<>();
    private final AtomicInteger parsed = new AtomicInteger();
    private volatile int lastParsed;

    /**
     * The page's document: the one kept for it when it and its setting are as they were and the files it read read the
     * same, else {@code parse}'s, which is kept when it added nothing to {@code diagnostics}.
     *
     * @param setting everything besides the page that decides its parse (the theme's fingerprint, site.yml)
     */
    public MarkdownDocument parse(Page page, String setting, ContentFiles files, List<Diagnostic> diagnostics,
                                  Supplier<MarkdownDocument> parse) {
        String slot = page.outputPath();
        Entry kept = pages.get(slot);
        if (kept != null && kept.page().equals(page) && kept.frontMatter().equals(page.frontMatter().toString())
                && kept.setting().equals(setting) && kept.document().readsTheSameFiles(files)) {
            return kept.document().reusedFor(page);
        }
        int before = diagnostics.size();
        MarkdownDocument document = parse.get();
        parsed.incrementAndGet();
        if (diagnostics.size() == before) {
            pages.put(slot, new Entry(page, page.frontMatter().toString(), setting, document));
        } else {
            pages.remove(slot);
        }
        return document;
    }

    /** Starts counting the pages a build parses. */
    public void startBuild() {
        parsed.set(0);
    }

    /** Ends a build's count; see {@link #lastParsed()}. */
    public void endBuild() {
        lastParsed = parsed.get();
    }

    /** How many pages the last build actually parsed (the rest were reused). */
    public int lastParsed() {
        return lastParsed;
    }
}
