package gluelab.kernel.magic;

import eu.maveniverse.maven.mima.context.Context;
import eu.maveniverse.maven.mima.context.ContextOverrides;
import eu.maveniverse.maven.mima.context.Runtimes;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.collection.CollectRequest;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.resolution.ArtifactResult;
import org.eclipse.aether.resolution.DependencyRequest;
import org.eclipse.aether.resolution.DependencyResolutionException;
import org.eclipse.aether.util.artifact.JavaScopes;
import org.eclipse.aether.util.filter.DependencyFilterUtils;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code %maven group:artifact:version}: resolves artifacts and their runtime dependencies with
 * Maven's own resolver (through MIMA), as Maven would for the user: ~/.m2/settings.xml (mirrors,
 * proxies, servers, offline), the local repository first, then the configured remote repositories.
 */
public final class MavenDeps {
    /** The jars to add, in resolution order, and the repositories that were asked. */
    public record Resolved(List<Path> jars, List<String> repositories) {}

    private MavenDeps() {}

    /**
     * @param localRepository null for the user's (settings.xml, or -Dmaven.repo.local, or ~/.m2/repository)
     * @param offline true to use only the local repository
     */
    public static Resolved resolve(List<String> coordinates, Path localRepository, boolean offline) {
        if (coordinates.isEmpty()) throw new IllegalArgumentException("usage: %maven [--offline] GROUP:ARTIFACT:VERSION ...");
        List<Dependency> roots = new ArrayList<>();
        for (String c : coordinates) {
            try {
                roots.add(new Dependency(new DefaultArtifact(c), JavaScopes.RUNTIME));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + c + "' is not a Maven coordinate: use GROUP:ARTIFACT:VERSION (or GROUP:ARTIFACT:EXTENSION[:CLASSIFIER]:VERSION)");
            }
        }
        ContextOverrides.Builder overrides = ContextOverrides.create().withUserSettings(true);
        if (offline) overrides.offline(true);
        String sysLocal = System.getProperty("maven.repo.local");
        if (localRepository != null) overrides.withLocalRepositoryOverride(localRepository);
        else if (sysLocal != null && !sysLocal.isBlank()) overrides.withLocalRepositoryOverride(Path.of(sysLocal));
        try (Context context = Runtimes.INSTANCE.getRuntime().create(overrides.build())) {
            CollectRequest collect = new CollectRequest();
            collect.setDependencies(roots);
            collect.setRepositories(context.remoteRepositories());
            DependencyRequest request = new DependencyRequest(collect, DependencyFilterUtils.classpathFilter(JavaScopes.RUNTIME));
            List<String> repos = new ArrayList<>();
            repos.add("local " + context.repositorySystemSession().getLocalRepository().getBasedir());
            context.remoteRepositories().forEach(r -> repos.add(r.getId() + " " + r.getUrl()));
            List<Path> jars = new ArrayList<>();
            try {
                for (ArtifactResult r : context.repositorySystem().resolveDependencies(context.repositorySystemSession(), request).getArtifactResults()) {
                    if (r.getArtifact() != null && r.getArtifact().getFile() != null) jars.add(r.getArtifact().getFile().toPath());
                }
            } catch (DependencyResolutionException e) {
                throw new IllegalArgumentException("cannot resolve " + String.join(", ", coordinates) + (offline ? " offline" : "") + ": "
                        + e.getMessage() + "\n(looked in " + String.join("; ", repos) + ")", e);
            }
            return new Resolved(jars, repos);
        }
    }
}
