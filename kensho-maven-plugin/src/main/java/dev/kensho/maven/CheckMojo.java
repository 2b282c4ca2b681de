package dev.kensho.maven;

import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;

/** {@code kensho:check}: runs every SQL example and checks every link and anchor; writes no site. */
@Mojo(name = "check", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true)
public class CheckMojo extends KenshoMojo {

    @Override
    String command() {
        return "check";
    }
}
