/**
 * How provider bundles offer chat models to the kernel: a {@link dev.quiver.langchain4j.ModelProvider}
 * service per provider. The LangChain4j packages this bundle exports ({@code dev.langchain4j.*}) are
 * the types those models speak.
 *
 * <p>Every provider sends its requests through {@link dev.quiver.langchain4j.RetryingHttpClient}
 * (built by {@link dev.quiver.langchain4j.QuiverHttpClientBuilder}), which retries by Quiver's
 * {@link dev.quiver.langchain4j.RetryPolicy} and reports final failures as
 * {@link dev.quiver.langchain4j.ModelException}, one line for the user. 1.4 added the retry notices
 * ({@code ModelSettings.retries}, {@code QuiverHttpClientBuilder.retryNotices}); 1.5 thinking levels
 * ({@code Thinking}, {@code ModelSettings.thinking}, {@code ModelProvider.thinks}); 1.6
 * {@code BaseUrls.refuseEndpoint}.
 */
@Export
@Version("1.6.0")
package dev.quiver.langchain4j;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
