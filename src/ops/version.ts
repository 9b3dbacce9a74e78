// The version `--version` prints: the package's, kept equal to package.json by test/version.test.ts.
// A constant, not a read of package.json, so the build runs alone and Deno needs no read permission.

/** This package's version. */
export const VERSION = "0.1.0";
