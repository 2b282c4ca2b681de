package dev.kensho.generator.render.theme;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Map;

/** A folder Kensho carries in its jar (read through a zip file system) or, in a development build, under target/classes. */
public final class BundledFolder {

    private BundledFolder() {
    }

    /**
     * The folder holding {@code marker}, a resource path such as {@code /kensho-theme/templates/page.ftlh}, so
     * many levels up ({@code levels} 1: the marker's own folder).
     *
     * @param missing what to say when the resource is not there
     */
    public static Path of(String marker, int levels, String missing) throws IOException {
        URL url = BundledFolder.class.getResource(marker);
        if (url == null) {
            throw new IOException(missing);
        }
        try {
            URI uri = url.toURI();
            Path file;
            if (uri.getScheme().equals("jar")) {
                FileSystem jar;
                try {
                    jar = FileSystems.newFileSystem(uri, Map.of());
                } catch (FileSystemAlreadyExistsException e) {
                    jar = FileSystems.getFileSystem(uri);
                }
                file = jar.getPath(marker);
            } else {
                file = Path.of(uri);
            }
            for (int i = 0; i < levels; i++) {
                file = file.getParent();
            }
            return file;
        } catch (URISyntaxException e) {
            throw new IOException("cannot read " + marker + " in " + url + ": " + e.getMessage());
        }
    }
}
