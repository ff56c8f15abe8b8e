/** Test support: scripted model servers on loopback. Not part of any distribution. */
@Export
@Version("1.0.0")
package dev.quiver.testing;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
