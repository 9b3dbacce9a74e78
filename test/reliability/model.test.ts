// Random sequences of requests against a fresh server and the reference model: every answer must agree.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiModel } from "./model.ts";
import { runModel, runSequence } from "./operations.ts";
import { readSeed } from "./seed.ts";

test("the server answers every step of 200 random sequences as the model does", async (t) => {
  const seed = readSeed();
  t.diagnostic(`seed ${seed} (replay with RELIABILITY_SEED=${seed})`);
  const path = process.env.RELIABILITY_PATH;
  const stats = await runModel({ seed, runs: 200, maxSteps: 40, ...(path === undefined ? {} : { path }) });
  t.diagnostic(`${stats.sequences} sequences, ${stats.steps} steps`);
  if (path === undefined) assert.ok(stats.steps >= 2000, `only ${stats.steps} steps ran`);
});

test("the model and the server agree on a hand-written sequence with every cascade", async () => {
  const stats = { sequences: 0, steps: 0 };
  const json = "application/json";
  await runSequence(
    [
      { method: "POST", target: "/users", contentType: json, body: '{"name":"Grace","email":"g@example.com"}' },
      { method: "DELETE", target: "/users/1" },
      // Two users held, so the next id is 3, which is taken: 409, and nothing changes.
      { method: "POST", target: "/users", contentType: json, body: '{"name":"Kay","email":"k@example.com"}' },
      { method: "POST", target: "/users", contentType: json, body: '{"id":1,"name":"Kay","email":"k@example.com"}' },
      { method: "PUT", target: "/users/1", contentType: json, body: '{"id":2}' },
      { method: "POST", target: "/posts", contentType: json, body: '{"title":"t","body":"b"}' },
      { method: "POST", target: "/posts/1/comments", contentType: json, body: '{"body":"c"}' },
      { method: "POST", target: "/comments/1/replies", contentType: json, body: '{"body":"r"}' },
      { method: "PUT", target: "/replies/1", contentType: json, body: '{"commentId":2,"id":1,"body":""}' },
      { method: "DELETE", target: "/posts/1" },
      { method: "GET", target: "/replies/1" },
      { method: "POST", target: "/posts", contentType: json, body: '{"title":"t","body":"b"}' },
      { method: "GET", target: "/posts?limit=1&offset=0" },
    ],
    stats,
  );
  assert.equal(stats.steps, 13);
});

test("a model that forgets a cascade is caught, and the shortest sequence is printed", async () => {
  const original = ApiModel.prototype.remove;
  // The model is made wrong on purpose: deleting a comment keeps its replies.
  ApiModel.prototype.remove = function (collection, id) {
    if (collection === "comments") this.comments = this.comments.filter((comment) => comment.id !== id);
    else original.call(this, collection, id);
  };
  try {
    await assert.rejects(runModel({ seed: 5, runs: 300, maxSteps: 40 }), (error: Error) => {
      assert.match(error.message, /Shortest sequence, \d+ steps:\n  1\. POST /);
      assert.match(error.message, /DELETE \/(posts|comments)\/\d+/);
      return true;
    });
  } finally {
    ApiModel.prototype.remove = original;
  }
});
