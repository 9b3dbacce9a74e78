// White-box tests of src/config.ts: readConfig defaults, accepted values and a ConfigError for each bad one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_BODY_LIMIT } from "../src/http/body.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, helpText, readConfig, readFlags, readSeedFile, SETTINGS, type Config } from "../src/config.ts";
import { TIMEOUTS } from "../src/http/server.ts";

const DEFAULTS: Config = { port: 3000, host: "127.0.0.1", httpServer: "node", bodyLimit: 1024 * 1024, ...TIMEOUTS, corsOrigins: "loopback", allowedHosts: ["localhost", "*.localhost", "ip"], authTokens: undefined, authTokensFile: undefined, readOnly: false, storeLimit: 64 * 1024 * 1024, seedFile: undefined, resourcesFile: undefined, dbFile: undefined, dialect: undefined, dataDir: undefined, databaseUrl: undefined, fsync: "always", compactBytes: 64 * 1024 * 1024, logFormat: "auto", metrics: true, control: false, controlLog: 1000, delay: undefined };

test("readConfig of an empty environment gives port 3000, host 127.0.0.1 and a 1 MiB body limit", () => {
  assert.equal(DEFAULT_BODY_LIMIT, 1_048_576);
  assert.deepEqual(readConfig({}), DEFAULTS);
});

test("readConfig treats a variable set to the empty string or only spaces as unset", () => {
  assert.deepEqual(readConfig({ PORT: "", HOST: "", BODY_LIMIT: "" }), DEFAULTS);
  assert.deepEqual(readConfig({ PORT: "  ", HOST: " ", BODY_LIMIT: "\t" }), DEFAULTS);
  assert.deepEqual(readConfig({ PORT: undefined, HOST: undefined, BODY_LIMIT: undefined }), DEFAULTS);
});

test("readConfig ignores variables it does not know", () => {
  assert.deepEqual(readConfig({ NODE_ENV: "production", LANG: "C.UTF-8", port: "abc" }), DEFAULTS);
});

test("readConfig reads valid PORT, HOST and BODY_LIMIT values", () => {
  const cases: Array<[env: Record<string, string>, config: Config]> = [
    [{ PORT: "0" }, { ...DEFAULTS, port: 0 }],
    [{ PORT: "1" }, { ...DEFAULTS, port: 1 }],
    [{ PORT: "8080" }, { ...DEFAULTS, port: 8080 }],
    [{ PORT: "08080" }, { ...DEFAULTS, port: 8080 }],
    [{ PORT: " 8080 " }, { ...DEFAULTS, port: 8080 }],
    [{ PORT: "65535" }, { ...DEFAULTS, port: 65535 }],
    [{ HOST: "0.0.0.0" }, { ...DEFAULTS, host: "0.0.0.0" }],
    [{ HOST: "::" }, { ...DEFAULTS, host: "::" }],
    [{ HOST: "::1" }, { ...DEFAULTS, host: "::1" }],
    [{ HOST: "localhost" }, { ...DEFAULTS, host: "localhost" }],
    [{ HOST: "api.example.internal" }, { ...DEFAULTS, host: "api.example.internal" }],
    [{ HOST: " 0.0.0.0\n" }, { ...DEFAULTS, host: "0.0.0.0" }],
    [{ BODY_LIMIT: "1" }, { ...DEFAULTS, bodyLimit: 1 }],
    [{ BODY_LIMIT: "1024" }, { ...DEFAULTS, bodyLimit: 1024 }],
    [{ BODY_LIMIT: "9007199254740991" }, { ...DEFAULTS, bodyLimit: Number.MAX_SAFE_INTEGER }],
    [{ PORT: "4000", HOST: "0.0.0.0", BODY_LIMIT: "2048" }, { ...DEFAULTS, port: 4000, host: "0.0.0.0", bodyLimit: 2048 }],
    [{ HEADERS_TIMEOUT_MS: "1", REQUEST_TIMEOUT_MS: "1" }, { ...DEFAULTS, headersTimeout: 1, requestTimeout: 1 }],
    [{ KEEP_ALIVE_TIMEOUT_MS: "250" }, { ...DEFAULTS, keepAliveTimeout: 250 }],
    [{ SHUTDOWN_TIMEOUT_MS: "3600000" }, { ...DEFAULTS, shutdownTimeout: 3_600_000 }],
  ];
  for (const [env, config] of cases) {
    assert.deepEqual(readConfig(env), config, JSON.stringify(env));
  }
});

test("readConfig throws a ConfigError naming the variable for each invalid value", () => {
  const port = (shown: string) => `PORT must be a whole number from 0 to 65535, not "${shown}"`;
  const limit = (shown: string) => `BODY_LIMIT must be a whole number from 1 to 9007199254740991, not "${shown}"`;
  const time = (name: string, shown: string) => `${name} must be a whole number from 1 to 3600000, not "${shown}"`;
  const host = (shown: string) => `HOST must be an address or host name such as 127.0.0.1 or 0.0.0.0, not "${shown}"`;
  const cases: Array<[name: string, value: string, message: string]> = [
    ["PORT", "-1", port("-1")],
    ["PORT", "65536", port("65536")],
    ["PORT", "99999999999999999999", port("99999999999999999999")],
    ["PORT", "abc", port("abc")],
    ["PORT", "80.5", port("80.5")],
    ["PORT", "8e3", port("8e3")],
    ["PORT", "0x50", port("0x50")],
    ["PORT", "+80", port("+80")],
    ["PORT", "80 80", port("80 80")],
    ["PORT", "Infinity", port("Infinity")],
    ["PORT", " 3o00 ", port("3o00")],
    ["PORT", "1".repeat(100), port("1".repeat(40))],
    ["BODY_LIMIT", "0", limit("0")],
    ["BODY_LIMIT", "-1", limit("-1")],
    ["BODY_LIMIT", "1.5", limit("1.5")],
    ["BODY_LIMIT", "1e6", limit("1e6")],
    ["BODY_LIMIT", "1MB", limit("1MB")],
    ["BODY_LIMIT", "abc", limit("abc")],
    ["BODY_LIMIT", "9007199254740992", limit("9007199254740992")],
    ["HEADERS_TIMEOUT_MS", "0", time("HEADERS_TIMEOUT_MS", "0")],
    ["REQUEST_TIMEOUT_MS", "3600001", time("REQUEST_TIMEOUT_MS", "3600001")],
    ["KEEP_ALIVE_TIMEOUT_MS", "5s", time("KEEP_ALIVE_TIMEOUT_MS", "5s")],
    ["SHUTDOWN_TIMEOUT_MS", "-8000", time("SHUTDOWN_TIMEOUT_MS", "-8000")],
    ["HOST", "local host", host("local host")],
    ["HOST", "local\thost", host("local\thost")],
    ["HOST", "http://localhost", host("http://localhost")],
    ["HOST", "127.0.0.1/8", host("127.0.0.1/8")],
    ["HOST", `a b${"c".repeat(100)}`, host(`a b${"c".repeat(37)}`)],
  ];
  for (const [name, value, message] of cases) {
    assert.throws(
      () => readConfig({ [name]: value }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `${name}=${value}`);
        assert.ok(error instanceof RangeError, `${name}=${value}`);
        assert.equal(error.name, "ConfigError");
        assert.equal(error.message, message);
        assert.ok(error.message.startsWith(`${name} `), `${name}=${value}`);
        return true;
      },
    );
  }
});

test("readConfig reads CORS_ORIGINS as *, off, or a list of origins normalised as browsers send them", () => {
  const cases: Array<[value: string, origins: Config["corsOrigins"]]> = [
    ["*", "*"],
    [" * ", "*"],
    ["off", "off"],
    ["OFF", "off"],
    ["https://app.example.com", ["https://app.example.com"]],
    ["HTTPS://App.Example.COM", ["https://app.example.com"]],
    ["http://127.0.0.1:8080, http://localhost:5173", ["http://127.0.0.1:8080", "http://localhost:5173"]],
    ["https://app.example.com:443,http://a.example:80", ["https://app.example.com", "http://a.example"]],
    ["https://app.example.com:8443", ["https://app.example.com:8443"]],
    ["http://[::1]:3000", ["http://[::1]:3000"]],
  ];
  for (const [value, corsOrigins] of cases) {
    assert.deepEqual(readConfig({ CORS_ORIGINS: value }), { ...DEFAULTS, corsOrigins }, value);
  }
});

test("readConfig throws a one-line ConfigError naming CORS_ORIGINS for each value that is not an origin", () => {
  const fix = "write http or https, ://, the host and an optional :port, with no path or trailing slash, such as https://app.example.com";
  const bad = (shown: string) => `CORS_ORIGINS must be loopback, *, off, or a comma-separated list of origins: "${shown}" is not an origin; ${fix}`;
  const empty = "CORS_ORIGINS has an empty entry; write loopback, *, off, or origins separated by single commas";
  const cases: Array<[value: string, message: string]> = [
    ["https://app.example.com/", bad("https://app.example.com/")],
    ["https://app.example.com/app", bad("https://app.example.com/app")],
    ["https://app.example.com?x=1", bad("https://app.example.com?x=1")],
    ["https://user@app.example.com", bad("https://user@app.example.com")],
    ["app.example.com", bad("app.example.com")],
    ["ftp://files.example.com", bad("ftp://files.example.com")],
    ["https://a.example,*", bad("*")],
    ["https://a.example,,https://b.example", empty],
    ["https://a.example,", empty],
    ["https://a.example:99999", bad("https://a.example:99999")],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => readConfig({ CORS_ORIGINS: value }), { name: "ConfigError", message }, value);
    assert.doesNotMatch(message, /\n/);
  }
});

test("readConfig reports a bad variable even when the others are valid", () => {
  assert.throws(() => readConfig({ PORT: "8080", HOST: "0.0.0.0", BODY_LIMIT: "none" }), {
    name: "ConfigError",
    message: 'BODY_LIMIT must be a whole number from 1 to 9007199254740991, not "none"',
  });
});

test("readConfig refuses a headers time-out longer than the request time-out", () => {
  assert.throws(() => readConfig({ HEADERS_TIMEOUT_MS: "2000", REQUEST_TIMEOUT_MS: "1000" }), {
    name: "ConfigError",
    message: "HEADERS_TIMEOUT_MS (2000) must not be larger than REQUEST_TIMEOUT_MS (1000)",
  });
  assert.throws(() => readConfig({ HEADERS_TIMEOUT_MS: "40000" }), { name: "ConfigError" });
});

test("readFlags reads a flag per setting, in both --flag value and --flag=value forms", () => {
  assert.deepEqual(readFlags(["--port", "8080", "--host=0.0.0.0", "--seed", "seed.json"]), {
    help: false,
    version: false,
    port: "8080",
    host: "0.0.0.0",
    seedFile: "seed.json",
  });
  assert.deepEqual(readFlags(["-h"]), { help: true, version: false });
  assert.deepEqual(readFlags(["--version"]), { help: false, version: true });
});

test("readConfig lets a flag win over its variable, and names the flag when its value is bad", () => {
  assert.equal(readConfig({ PORT: "abc" }, { port: "0" }).port, 0);
  assert.equal(readConfig({ SEED_FILE: "a.json" }, { seedFile: "b.json" }).seedFile, "b.json");
  assert.equal(readConfig({ SEED_FILE: "a.json" }).seedFile, "a.json");
  assert.throws(() => readConfig({ PORT: "1" }, { port: "x" }), {
    name: "ConfigError",
    message: '--port must be a whole number from 0 to 65535, not "x"',
  });
});

test("helpText lists every setting's flag and variable", () => {
  const text = helpText("rest-reference-server");
  for (const setting of SETTINGS) {
    assert.ok(text.includes(`${setting.flag} <`), setting.flag);
    assert.ok(text.includes(`(${setting.variable}`), setting.variable);
  }
});

test("readSeedFile parses a JSON file, and names the file when it cannot", (t) => {
  const folder = mkdtempSync(join(tmpdir(), "rest-config-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const good = join(folder, "good.json");
  writeFileSync(good, '{"users": []}');
  assert.deepEqual(readSeedFile(good), { users: [] });
  const missing = join(folder, "missing.json");
  assert.throws(() => readSeedFile(missing), {
    name: "ConfigError",
    message: `Cannot read the seed file ${missing} (ENOENT); check the path given to --seed or SEED_FILE`,
  });
  assert.throws(() => readSeedFile(folder), { name: "ConfigError", message: `Cannot read the seed file ${folder} (EISDIR); check the path given to --seed or SEED_FILE` });
});

test("readConfig reads LOG_FORMAT (json, text, off or auto, in any case) and METRICS (on or off); a flag wins", () => {
  assert.equal(readConfig({ LOG_FORMAT: "JSON" }).logFormat, "json");
  assert.equal(readConfig({ LOG_FORMAT: "off" }).logFormat, "off");
  assert.equal(readConfig({ LOG_FORMAT: "Auto" }).logFormat, "auto");
  assert.equal(readConfig({ LOG_FORMAT: "off" }, readFlags(["--log-format", "text"])).logFormat, "text");
  assert.equal(readConfig({ METRICS: "off" }).metrics, false);
  assert.equal(readConfig({ METRICS: "OFF" }, readFlags(["--metrics=on"])).metrics, true);
});

test("readConfig refuses a LOG_FORMAT or METRICS it does not know, naming what it takes", () => {
  assert.throws(() => readConfig({ LOG_FORMAT: "xml" }), { name: "ConfigError", message: 'LOG_FORMAT must be json, text, off or auto, not "xml"' });
  assert.throws(() => readConfig({}, readFlags(["--metrics", "yes"])), { name: "ConfigError", message: '--metrics must be on or off, not "yes"' });
});

test("readConfig reads DATABASE_URL and --database-url, a flag winning", () => {
  const url = "postgres://rest:secret@db:5432/rest";
  assert.equal(readConfig({ DATABASE_URL: url }).databaseUrl, url);
  assert.equal(readConfig({ DATABASE_URL: url }, readFlags(["--database-url", "postgresql://localhost/other"])).databaseUrl, "postgresql://localhost/other");
});

test("readConfig refuses a DATABASE_URL that is not a PostgreSQL URL, without echoing it (it may hold a password)", () => {
  assert.throws(
    () => readConfig({ DATABASE_URL: "mysql://rest:secret@db/rest" }),
    new ConfigError(
      "DATABASE_URL must be a PostgreSQL URL that begins with postgres:// or postgresql://, such as postgres://user:password@localhost:5432/name",
    ),
  );
});

test("readConfig refuses DATABASE_URL together with DATA_DIR: one store at a time", () => {
  assert.throws(
    () => readConfig({ DATABASE_URL: "postgres://localhost/rest", DATA_DIR: "/var/lib/rest" }),
    new ConfigError("DATABASE_URL and DATA_DIR name two stores; set one of them: the database, or the data directory"),
  );
  assert.throws(
    () => readConfig({ DATA_DIR: "/var/lib/rest" }, readFlags(["--database-url=postgres://localhost/rest"])),
    new ConfigError("--database-url and DATA_DIR name two stores; set one of them: the database, or the data directory"),
  );
});

test("readConfig refuses AUTH_TOKENS or AUTH_TOKENS_FILE set but blank, from the environment or a flag, where other settings count blank as unset", () => {
  for (const text of ["", " ", "\t"]) {
    assert.throws(() => readConfig({ AUTH_TOKENS: text }), {
      name: "ConfigError",
      message: "AUTH_TOKENS is set but holds no token; give SCOPE:TOKEN entries such as read:abc,write:def, or leave it unset to serve without tokens",
    });
    assert.throws(() => readConfig({ AUTH_TOKENS_FILE: text }), {
      name: "ConfigError",
      message: "AUTH_TOKENS_FILE is set but names no file; give the path of a file of SCOPE:TOKEN lines, or leave it unset to serve without tokens",
    });
    assert.throws(() => readConfig({}, { authTokens: text }), { name: "ConfigError", message: /^--auth-tokens is set but holds no token; / });
    assert.throws(() => readConfig({}, { authTokensFile: text }), { name: "ConfigError", message: /^--auth-tokens-file is set but names no file; / });
  }
  // Unset, they are unset: the server serves without tokens.
  assert.deepEqual(readConfig({ AUTH_TOKENS: undefined, AUTH_TOKENS_FILE: undefined }), DEFAULTS);
  assert.equal(readConfig({ AUTH_TOKENS: " write:w1 " }).authTokens, "write:w1");
});
