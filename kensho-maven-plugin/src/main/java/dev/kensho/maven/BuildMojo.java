package dev.kensho.maven;

import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;

/** {@code kensho:build}: everything check does, then writes the site into {@code out} (replaced only when all holds). */
@Mojo(name = "build", defaultPhase = LifecyclePhase.PACKAGE, threadSafe = true)
public class BuildMojo extends KenshoMojo {

    @Override
    String command() {
        return "build";
    }
}
