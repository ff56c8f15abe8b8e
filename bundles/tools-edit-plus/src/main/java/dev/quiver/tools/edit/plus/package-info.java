/**
 * The edit-plus tool set: {@code multi_edit}, {@code apply_patch}, {@code list_dir}, {@code move_file},
 * {@code delete_file}, {@code create_directory}, {@code copy_path} and {@code replace_match}. Every tool is
 * a Declarative Services component registered as a {@link dev.quiver.api.Tool}; the package exports nothing.
 */
package dev.quiver.tools.edit.plus;
