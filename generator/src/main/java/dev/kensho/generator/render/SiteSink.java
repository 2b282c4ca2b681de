package dev.kensho.generator.render;

import java.io.IOException;

/**
 * Where rendered files go as soon as they are made: the build's staging folder, or the preview's
 * memory. Called from several rendering threads at once.
 */
@FunctionalInterface
public interface SiteSink {

    void write(String path, String content) throws IOException;
}
