// The records a data set holds, by collection: their shapes as the API answers them, and the collections' names.

/** A record's id: a whole number from 1, or, in a collection a file gives string ids, 1 to 64 URL-safe characters. */
export type RecordId = number | string;

/** A stored record: its id and any JSON members. */
export type StoredRecord = { id: RecordId } & Record<string, unknown>;

/** Members of a record beyond the ones the API knows: any JSON value. */
type OtherMembers = Record<string, unknown>;

/** A user as the API answers it. */
export type UserRecord = { id: number; name: string; email: string } & OtherMembers;
/** A post as the API answers it. */
export type PostRecord = { id: number; title: string; body: string; createdAt: string } & OtherMembers;
/** A comment as the API answers it. */
export type CommentRecord = { id: number; postId: number; body: string; createdAt: string } & OtherMembers;
/** A reply as the API answers it. */
export type ReplyRecord = { id: number; commentId: number; body: string; createdAt: string } & OtherMembers;

/**
 * The records an instance starts with, by collection, each whole as the API answers it.
 * A collection left out starts empty.
 */
export type Seed = {
  users?: readonly UserRecord[];
  posts?: readonly PostRecord[];
  comments?: readonly CommentRecord[];
  replies?: readonly ReplyRecord[];
} & { readonly [collection: string]: readonly StoredRecord[] | undefined };

/** Every record an instance holds, by collection, in creation order. */
export type Snapshot = {
  users: UserRecord[];
  posts: PostRecord[];
  comments: CommentRecord[];
  replies: ReplyRecord[];
};

/** The names of the built-in collections, in the order their records are loaded (parents first). */
export const COLLECTIONS = ["users", "posts", "comments", "replies"] as const;

/** One of the collections: a built-in one, or one a resources file defines. */
export type CollectionName = string;

/** Checked copies of a seed's records, by collection. */
export type SeedRecords = Record<CollectionName, StoredRecord[]>;

