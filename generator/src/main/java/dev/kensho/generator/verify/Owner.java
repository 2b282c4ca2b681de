package dev.kensho.generator.verify;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Whether a file or folder belongs to the user the build runs as (by uid where the system has one). */
public final class Owner {

    private Owner() {
    }

    /** The build user's uid: the owner of this process's /proc entry on Linux; -1 where there is none. */
    private static final int UID = currentUid();

    private static int currentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return -1;
        }
    }

    /** Null when {@code path} (not followed if a link) is the build user's; else a one-line reason. */
    public static String problem(Path path) {
        try {
            if (UID >= 0) {
                int uid = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                return uid == UID ? null : "it belongs to uid " + uid + ", not to the build user (uid " + UID + ")";
            }
            String owner = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName();
            return owner.equals(System.getProperty("user.name")) ? null
                    : "it belongs to " + owner + ", not to the build user " + System.getProperty("user.name");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "its owner cannot be read (" + e.getMessage() + ")";
        }
    }
}
