// The posts, comments and replies resources: a post has comments, a comment has replies.
import { defineResource, type Resource } from "../resource.ts";
import { nonEmptyString } from "../validate.ts";

/** The three resources of the family, linked so that deletes cascade down. */
export type PostFamily = { posts: Resource; comments: Resource; replies: Resource };

/**
 * The family; each collection numbers its own ids and never reuses one (docs/spec.md#5-posts-comments-and-replies).
 * `clock` gives `createdAt`; the current time by default.
 */
export function definePostFamily(options: { clock?: () => Date } = {}): PostFamily {
  const { clock } = options;
  const body = (example: string) => ({ required: true, rule: nonEmptyString, example });
  const posts = defineResource({
    name: "posts",
    label: "Post",
    path: "/posts",
    notFound: "POST_NOT_FOUND",
    ids: "sequence",
    fields: { title: { required: true, rule: nonEmptyString, example: "Hello" }, body: body("My first post.") },
    clientIds: false,
    timestamps: true,
    clock,
  });
  const comments = defineResource({
    name: "comments",
    label: "Comment",
    path: "/comments",
    notFound: "COMMENT_NOT_FOUND",
    ids: "sequence",
    fields: { body: body("Welcome!") },
    clientIds: false,
    timestamps: true,
    clock,
    parent: { resource: posts, key: "postId", segment: "comments" },
  });
  const replies = defineResource({
    name: "replies",
    label: "Reply",
    path: "/replies",
    notFound: "REPLY_NOT_FOUND",
    ids: "sequence",
    fields: { body: body("Thank you.") },
    clientIds: false,
    timestamps: true,
    clock,
    parent: { resource: comments, key: "commentId", segment: "replies" },
  });
  return { posts, comments, replies };
}
