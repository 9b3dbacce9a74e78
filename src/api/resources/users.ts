// The users resource (docs/spec.md#4-users): its collection, its two seeded users and its id rule.
import { defineResource, type Resource } from "../resource.ts";
import type { StoredRecord } from "../../store/records.ts";
import { emailAddress, nonEmptyString } from "../validate.ts";

/** The two users every instance starts with (docs/spec.md#users-starting-records). */
export const SEED_USERS: readonly StoredRecord[] = [
  { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
  { id: 2, name: "Alan Turing", email: "alan@example.com" },
];

/** The users resource; where its records live is the store's business. */
export function defineUsers(): Resource {
  return defineResource({
    name: "users",
    label: "User",
    path: "/users",
    notFound: "USER_NOT_FOUND",
    // A new id is the number of users held + 1 (docs/spec.md#users-create).
    ids: "count",
    fields: {
      name: { required: true, rule: nonEmptyString, example: "Grace Hopper" },
      email: { required: true, rule: emailAddress, example: "grace@example.com" },
    },
    clientIds: true,
    timestamps: false,
  });
}
