/**
 * Test support: scripted model servers on loopback ({@link dev.quiver.testing.OpenAiStub},
 * {@link dev.quiver.testing.AnthropicStub}, {@link dev.quiver.testing.OllamaStub}) speaking each
 * provider's documented wire format, streaming included; {@link dev.quiver.testing.FileTrees}, a folder
 * as a test compares it; {@link dev.quiver.testing.Monitors}, which lock a thread waits on. Not part of
 * any distribution.
 */
@Export
@Version("1.3.0")
package dev.quiver.testing;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
