// White-box tests of src/ops/redact.ts: which query parameters hold secrets, and how a target is shown without them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { HIDDEN, isSecretName, redactQuery, SECRET_QUERY_ENDINGS, SECRET_QUERY_NAMES } from "../src/ops/redact.ts";

test("every listed name and every name with a listed ending is a secret, in any case and with - for _", () => {
  for (const name of SECRET_QUERY_NAMES) {
    assert.equal(isSecretName(name), true, name);
    assert.equal(isSecretName(name.toUpperCase()), true, name);
    assert.equal(isSecretName(name.replaceAll("_", "-")), true, name);
  }
  for (const ending of SECRET_QUERY_ENDINGS) {
    assert.equal(isSecretName(`refresh${ending}`), true, ending);
    assert.equal(isSecretName(`X-Amz${ending.replace("_", "-")}`), true, ending);
  }
  for (const name of ["access_token", "api_key", "apikey", "key", "password", "secret", "signature", "sig", "auth", "client_secret", "id_token", "X-Amz-Security-Token", "X-Goog-Signature"]) {
    assert.equal(isSecretName(name), true, name);
  }
});

test("ordinary names are not secrets, nor names that only begin or contain a secret's", () => {
  for (const name of ["limit", "offset", "sort", "name", "email", "userId", "tokens", "keys", "monkey", "token_type", "signed", "author", "q"]) {
    assert.equal(isSecretName(name), false, name);
  }
});

test("a percent-encoded or +-encoded name is read as a server decodes it", () => {
  assert.equal(isSecretName("access%5Ftoken"), true);
  assert.equal(isSecretName("%74oken"), true);
  assert.equal(isSecretName("api+key"), false);
  assert.equal(isSecretName("%zz"), false);
});

test("redactQuery replaces each secret's value with *** and keeps everything else as written", () => {
  assert.equal(HIDDEN, "***");
  assert.equal(redactQuery("/users"), "/users");
  assert.equal(redactQuery("/users?limit=2&sort=-name"), "/users?limit=2&sort=-name");
  assert.equal(redactQuery("/users?access_token=a.b.c"), "/users?access_token=***");
  assert.equal(redactQuery("/x?a=1&token=t&b=2&api-key=k&token=again"), "/x?a=1&token=***&b=2&api-key=***&token=***");
  // A name without a value, or with an empty one, has nothing to hide.
  assert.equal(redactQuery("/x?token&key="), "/x?token&key=");
  // A secret's value is hidden whole, `?` and all; a URL in another's value has its own secrets hidden.
  assert.equal(redactQuery("/x?token=a?b=c"), "/x?token=***");
  assert.equal(redactQuery("/x?next=/a?token=t"), "/x?next=/a?token=***");
  // An access line or error line holding a target: the value ends at white space.
  assert.equal(redactQuery("GET /x?password=hunter2 500"), "GET /x?password=*** 500");
  assert.equal(redactQuery("http://localhost:5173/cb?code=1&id_token=e30#frag"), "http://localhost:5173/cb?code=1&id_token=***#frag");
});
