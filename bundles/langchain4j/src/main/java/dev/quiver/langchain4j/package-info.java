/**
 * How provider bundles offer chat models to the kernel: a {@link dev.quiver.langchain4j.ModelProvider}
 * service per provider. The LangChain4j packages this bundle exports ({@code dev.langchain4j.*}) are
 * the types those models speak.
 */
@Export
@Version("1.0.0")
package dev.quiver.langchain4j;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
